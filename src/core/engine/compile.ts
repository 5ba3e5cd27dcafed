/**
 * Compiles a (normalized) canvas DSL into a checked canvas the engine can run, or reports every
 * problem found, each with its JSON path. Pure: runs in the API (to reject bad canvases) and in
 * the workflow (to rebuild the canvas from its input).
 */
import { componentDef, componentNames, type AnyComponentDef } from '../components/registry';
import { scanParamRefs } from '../components/common';
import type { CanvasView, ExecutionParams, ParamRef } from '../components/definition';
import { formatJsonPath, type PathSegment } from '../dsl/jsonPath';
import { legacyPathMap, parseLenient, type LenientIssue } from '../dsl/lenientParse';
import { CanvasDslSchema, DEFAULT_GLOBALS, type CanvasDsl } from '../dsl/schema';
import type { Problem } from '../../errors';
import type { CompiledCanvas, CompiledNode } from './compiled';
import { findCycleProblems } from './cycles';
import { checkLoops, type FailedComponent } from './loopChecks';
import { findDocumentProblems, findReferenceProblems, findUnreachable } from './runnable';

export type { CompiledCanvas, CompiledNode } from './compiled';

/**
 * What the engine runs, as RAGFlow does, but is surely a mistake. `warnings`: components no path
 * reaches (they never run; RAGFlow's editor saves them too). `referenceProblems`: `{sys.*}` names
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

function displayNames(dsl: CanvasDsl): Map<string, string> {
  const names = new Map<string, string>();
  const graph = dsl.graph as { nodes?: Array<{ id?: unknown; data?: { name?: unknown } }> } | undefined;
  for (const n of graph?.nodes ?? []) {
    if (typeof n?.id === 'string' && typeof n.data?.name === 'string') names.set(n.id, n.data.name);
  }
  return names;
}

function readOrigins(dsl: CanvasDsl): Record<string, PathSegment[]> {
  const raw = (dsl as { _origins?: unknown })._origins;
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, PathSegment[]> = {};
  for (const [id, path] of Object.entries(raw)) {
    if (Array.isArray(path) && path.every((s) => typeof s === 'string' || typeof s === 'number')) out[id] = path as PathSegment[];
  }
  return out;
}

function envDefaults(dsl: CanvasDsl): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(dsl.variables)) {
    const type = String(v.type ?? '');
    let value = v.value;
    if (value === undefined || value === null) {
      if (type === 'number') value = 0;
      else if (type === 'boolean') value = false;
      else if (type === 'object') value = {};
      else if (type.startsWith('array')) value = [];
      else value = '';
    }
    out[`env.${key}`] = value;
  }
  return out;
}

interface Checked {
  nodes: Record<string, CompiledNode>;
  problems: Problem[];
  failed: Map<string, FailedComponent>;
  repairs: ParamsRepair[];
}

function checkComponents(dsl: CanvasDsl, base: PathSegment[], root: string): Checked {
  const problems: Problem[] = [];
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
      if (!ids.has(d)) problems.push({ path: at(id, 'downstream', i), message: `downstream component "${d}" does not exist` });
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
      if (r.ref.kind === 'component' && !ids.has(r.ref.componentId)) {
        problems.push({
          path: at(id, 'obj', 'params', ...toRaw(r.path)),
          message: `reference {${r.ref.expr}} points to component "${r.ref.componentId}", which does not exist`,
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
      if (!ids.has(t.target)) problems.push({ path: at(id, 'obj', 'params', ...toRaw(t.path)), message: `target component "${t.target}" does not exist` });
    }
    params.exception_goto.forEach((g, i) => {
      if (!ids.has(g)) problems.push({ path: at(id, 'obj', 'params', 'exception_goto', i), message: `exception_goto component "${g}" does not exist` });
    });
    nodes[id] = {
      id,
      type: name,
      def,
      params,
      downstream: comp.downstream,
      upstream: comp.upstream,
      parentId: comp.parent_id || null,
      displayName: names.get(id) ?? '',
      role: def.role,
    };
  }

  if (!dsl.components.begin) problems.push({ path: formatJsonPath([...base, 'components'], root), message: 'the canvas has no "begin" component' });
  else if (dsl.components.begin.obj.component_name !== 'Begin') {
    problems.push({
      path: at('begin', 'obj', 'component_name'),
      message: `"begin" must be a Begin component, not "${dsl.components.begin.obj.component_name}"`,
    });
  }
  return { nodes, problems, failed, repairs };
}

/** Producers whose content the engine may stream into a downstream Message or Answer. */
function streamingProducers(nodes: Record<string, CompiledNode>): Set<string> {
  // Anyone reading a producer other than a Message needs its value before rendering time, so
  // such producers run eagerly (RAGFlow would hand them an unconsumed stream object).
  const consumers = new Map<string, CompiledNode[]>();
  for (const node of Object.values(nodes)) {
    const refs = [...node.def.inputRefs(node.params), ...(node.def.paramRefs?.(node.params) ?? []).map((r) => r.ref)];
    for (const ref of refs) {
      if (ref.kind !== 'component') continue;
      const list = consumers.get(ref.componentId) ?? [];
      list.push(node);
      consumers.set(ref.componentId, list);
    }
  }
  const out = new Set<string>();
  for (const node of Object.values(nodes)) {
    if (!node.def.streamsContent?.(node.params)) continue;
    if (node.params.exception_method && node.params.exception_goto.length > 0) continue;
    const shows = node.downstream.some((d) => nodes[d]?.role === 'message' || nodes[d]?.role === 'answer');
    if (!shows) continue;
    // Only when a Message actually shows it; RAGFlow would otherwise never run the model at all.
    const readers = consumers.get(node.id) ?? [];
    const answered = node.downstream.some((d) => nodes[d]?.role === 'answer');
    if ((readers.length > 0 || answered) && readers.every((r) => r.role === 'message')) out.add(node.id);
  }
  return out;
}

function makeView(nodes: Readonly<Record<string, CompiledNode>>): CanvasView {
  const children = new Map<string, string[]>();
  for (const node of Object.values(nodes)) if (node.parentId) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id]);
  const begin = nodes.begin?.params as { prologue?: unknown; enablePrologue?: unknown } | undefined;
  // The editor's switch turns the greeting off without deleting its text.
  const prologue = typeof begin?.prologue === 'string' && begin.enablePrologue !== false ? begin.prologue : '';
  return {
    has: (id) => Object.prototype.hasOwnProperty.call(nodes, id),
    typeOf: (id) => nodes[id]?.type ?? '',
    displayName: (id) => nodes[id]?.displayName ?? '',
    downstream: (id) => nodes[id]?.downstream ?? [],
    upstream: (id) => nodes[id]?.upstream ?? [],
    parentId: (id) => nodes[id]?.parentId ?? null,
    childrenOf: (id) => children.get(id) ?? [],
    roleOf: (id) => nodes[id]?.role ?? 'plain',
    prologue: () => prologue,
  };
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
  const { nodes, problems, failed, repairs } = checkComponents(dsl, base, root);
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
    warnings: findUnreachable(dsl, nodes, base),
    referenceProblems: findReferenceProblems(dsl, nodes, base),
    canvas: {
      dsl: { ...dsl, globals: { ...DEFAULT_GLOBALS, ...dsl.globals } },
      nodes,
      streaming: streamingProducers(nodes),
      envDefaults: envDefaults(dsl),
      origins: readOrigins(dsl),
      loopStarts: loops.starts,
      view: makeView(nodes),
    },
  };
}
