/**
 * Compiles a (normalized) canvas DSL into a checked canvas the engine can run, or reports every
 * problem found, each with its JSON path. Pure: runs in the API (to reject bad canvases) and in
 * the workflow (to rebuild the canvas from its input).
 */
import { componentDef, componentNames, type AnyComponentDef } from '../components/registry';
import { scanParamRefs } from '../components/common';
import type { ExecutionParams, ParamRef } from '../components/definition';
import { formatJsonPath, type PathSegment } from '../dsl/jsonPath';
import { legacyPathMap, parseLenient, type LenientIssue } from '../dsl/lenientParse';
import { CanvasDslSchema, type CanvasDsl } from '../dsl/schema';
import type { Problem } from '../../errors';
import type { CompiledCanvas, CompiledNode } from './compiled';
import { assembleCanvas, compiledNode, displayNames } from './assemble';
import { findCycleProblems } from './cycles';
import { checkLoops, type FailedComponent } from './loopChecks';
import { findDocumentProblems, findReferenceProblems, findUnreachable } from './runnable';

export type { CompiledCanvas, CompiledNode } from './compiled';

/**
 * What the engine runs, as RAGFlow does, but is surely a mistake. `warnings`: components no path
 * reaches (they never run; RAGFlow's editor saves them too), and downstream, branch and
 * exception_goto entries naming no component (a run that goes there fails), and variable references
 * to no component (the component that reads one fails). `referenceProblems`: `{sys.*}` names
 * that do not exist and outputs a component never declares (they read as ""); the API refuses to
 * save those (api/canvasInput.ts), while stored canvases and workflow histories keep compiling.
 */
export type CompileResult =
  | {
      ok: true;
      canvas: CompiledCanvas;
      warnings: Problem[];
      referenceProblems: Problem[];
      /**
       * The DSL as given with the empty values of the wrong kind read as their defaults
       * (src/core/dsl/lenientParse.ts): what to store, so that every later reader of the stored
       * params sees what the compiler saw. The input itself when nothing needed that.
       */
      source: unknown;
    }
  | { ok: false; problems: Problem[] };

function issueProblems(issues: LenientIssue[], base: PathSegment[], root: string): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const issue of issues) {
    const problem = { path: formatJsonPath([...base, ...issue.path], root), message: issue.message };
    // A value an old spelling feeds to two fields is reported once, where the canvas wrote it.
    const key = `${problem.path}\n${problem.message}`;
    if (!seen.has(key)) out.push(problem);
    seen.add(key);
  }
  return out;
}

/** Params read leniently and stored repaired: where in the DSL, and the repaired value. */
interface ParamsRepair {
  path: PathSegment[];
  value: unknown;
}

function setAt(root: unknown, path: readonly PathSegment[], value: unknown): void {
  let cur = root as Record<PathSegment, unknown>;
  for (const seg of path.slice(0, -1)) cur = cur[seg] as Record<PathSegment, unknown>;
  cur[path[path.length - 1]!] = value;
}

interface Checked {
  nodes: Record<string, CompiledNode>;
  problems: Problem[];
  /** Dangling references RAGFlow loads (see {@link checkComponents}): a run fails only when it takes one. */
  dangling: Problem[];
  failed: Map<string, FailedComponent>;
  repairs: ParamsRepair[];
}

function checkComponents(dsl: CanvasDsl, base: PathSegment[], root: string): Checked {
  const problems: Problem[] = [];
  // RAGFlow loads a canvas whose downstream, router target (`to`) or exception_goto names no
  // component: its Go compiler wires edges from `upstream` and drops unknown branch targets (its
  // all.json fixture pins a Switch branch to a missing CodeExec), its Python engine fails only when
  // the path reaches one. So do we: a warning here, a clear failure in the run that takes it
  // (post.ts). An unknown `upstream` stays an error, as the Go compiler refuses it.
  const dangling: Problem[] = [];
  const nodes: Record<string, CompiledNode> = {};
  const failed = new Map<string, FailedComponent>();
  const repairs: ParamsRepair[] = [];
  const names = displayNames(dsl);
  const ids = new Set(Object.keys(dsl.components));
  const at = (...segs: PathSegment[]) => formatJsonPath([...base, 'components', ...segs], root);

  const checkParams = (def: AnyComponentDef, raw: unknown, path: PathSegment[]): ExecutionParams | null => {
    const parsed = parseLenient(def.params, raw, legacyPathMap(raw, def.legacyParams));
    if (parsed.repaired) repairs.push({ path: ['components', ...path], value: parsed.value });
    if (!parsed.success) {
      problems.push(...issueProblems(parsed.issues, [...base, 'components', ...path], root));
      return null;
    }
    return parsed.data;
  };

  for (const [id, comp] of Object.entries(dsl.components)) {
    const name = comp.obj.component_name;
    const def = componentDef(name);
    if (!def) {
      problems.push({ path: at(id, 'obj', 'component_name'), message: `unknown component "${name}" (known: ${componentNames().join(', ')})` });
      continue;
    }
    // Paths the definition reports after its own renames, mapped to the spelling the canvas uses.
    const toRaw = legacyPathMap(comp.obj.params, def.legacyParams);
    const params = checkParams(def, comp.obj.params, [id, 'obj', 'params']);
    if (!params) failed.set(id, { type: name, parentId: comp.parent_id || null });
    comp.downstream.forEach((d, i) => {
      if (!ids.has(d)) dangling.push({ path: at(id, 'downstream', i), message: `downstream component "${d}" does not exist: a run that goes there fails` });
    });
    comp.upstream.forEach((u, i) => {
      if (!ids.has(u)) problems.push({ path: at(id, 'upstream', i), message: `upstream component "${u}" does not exist` });
    });
    if (comp.parent_id && !ids.has(comp.parent_id))
      problems.push({ path: at(id, 'parent_id'), message: `parent component "${comp.parent_id}" does not exist` });
    // References are checked even when other params are wrong, so one pass reports everything.
    const refs: ParamRef[] = [...scanParamRefs(comp.obj.params), ...(params ? (def.paramRefs?.(params) ?? []) : [])];
    const seen = new Set<string>();
    for (const r of refs) {
      const key = `${r.path.join('/')}|${r.ref.expr}`;
      if (seen.has(key)) continue;
      seen.add(key);
      // RAGFlow loads such a canvas (neither engine checks references at load); reading the
      // reference fails (Python: "Can't find variable", Go: "unresolved reference"). So: a warning.
      if (r.ref.kind === 'component' && !ids.has(r.ref.componentId)) {
        dangling.push({
          path: at(id, 'obj', 'params', ...toRaw(r.path)),
          message: `reference {${r.ref.expr}} points to component "${r.ref.componentId}", which does not exist: "${id}" fails when it reads it`,
        });
      }
    }
    if (!params) continue;

    for (const nested of def.nested?.(params) ?? []) {
      const nestedDef = componentDef(nested.componentName);
      if (!nestedDef) {
        problems.push({ path: at(id, 'obj', 'params', ...toRaw(nested.path), 'component_name'), message: `unknown component "${nested.componentName}"` });
        continue;
      }
      checkParams(nestedDef, nested.params, [id, 'obj', 'params', ...toRaw(nested.path), 'params']);
    }
    for (const t of def.targets?.(params) ?? []) {
      if (!ids.has(t.target))
        dangling.push({
          path: at(id, 'obj', 'params', ...toRaw(t.path)),
          message: `target component "${t.target}" does not exist: a run that takes this branch fails`,
        });
    }
    params.exception_goto.forEach((g, i) => {
      if (!ids.has(g))
        dangling.push({
          path: at(id, 'obj', 'params', 'exception_goto', i),
          message: `exception_goto component "${g}" does not exist: a run whose error goes there fails`,
        });
    });
    nodes[id] = compiledNode(id, comp, def, params, names);
  }

  if (!dsl.components.begin) problems.push({ path: formatJsonPath([...base, 'components'], root), message: 'the canvas has no "begin" component' });
  else if (dsl.components.begin.obj.component_name !== 'Begin') {
    problems.push({
      path: at('begin', 'obj', 'component_name'),
      message: `"begin" must be a Begin component, not "${dsl.components.begin.obj.component_name}"`,
    });
  }
  return { nodes, problems, dangling, failed, repairs };
}

export interface CompileOptions {
  /** Path prefix for messages, e.g. `['dsl']` when the DSL came wrapped in RAGFlow's export form. */
  base?: PathSegment[];
}

/**
 * Validates a normalized bare DSL and builds the runnable canvas. Every problem is reported, each
 * with the JSON path of the offending value.
 */
export function compileCanvas(input: unknown, options: CompileOptions = {}): CompileResult {
  const base = options.base ?? [];
  const root = '$';
  // Depth and refused text first: nothing recursive may walk a document that fails them.
  const documentProblems = findDocumentProblems(input, base);
  if (documentProblems.length > 0) return { ok: false, problems: documentProblems };
  const parsed = parseLenient(CanvasDslSchema, input);
  if (!parsed.success) return { ok: false, problems: issueProblems(parsed.issues, base, root) };
  const dsl = parsed.data;
  const { nodes, problems, dangling, failed, repairs } = checkComponents(dsl, base, root);
  problems.push(...findCycleProblems(dsl, nodes, base));
  const loops = checkLoops(nodes, failed, (id, ...rest) => formatJsonPath([...base, 'components', id, ...rest], root));
  problems.push(...loops.problems);
  if (problems.length > 0) return { ok: false, problems };
  let source = parsed.value;
  if (repairs.length > 0) {
    source = JSON.parse(JSON.stringify(source)) as unknown;
    for (const r of repairs) setAt(source, r.path, r.value);
    // The parsed DSL carries the repaired params too (it holds them raw).
    for (const id of Object.keys(dsl.components)) dsl.components[id]!.obj.params = (source as CanvasDsl).components[id]!.obj.params;
  }
  return {
    ok: true,
    source,
    warnings: [...dangling, ...findUnreachable(dsl, nodes, base)],
    referenceProblems: findReferenceProblems(dsl, nodes, base),
    canvas: assembleCanvas(dsl, nodes, loops.starts),
  };
}
