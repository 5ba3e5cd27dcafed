/**
 * Compiles an ingestion pipeline canvas (RAGFlow's `canvas_category: "dataflow_canvas"`,
 * `canvas_type: "Ingestion Pipeline"`) into its steps, or reports every problem, each with its
 * JSON path. Accepts what RAGFlow stores and exports: the bare DSL or the export wrapper, as an
 * object or a JSON string; legacy component names are normalized first (`Splitter` →
 * `TokenChunker`, `HierarchicalMerger` → `TitleChunker`, RAGFlow's `dsl_migration`).
 *
 * Order, as RAGFlow's `Pipeline.run` walks it: the path starts at the component whose id is
 * `File`, then each step appends its `downstream` (all of them, in order) and the next step runs
 * on the output of the one before it. A component reached twice (a cycle, or two paths joining)
 * is a problem here, where RAGFlow would run it again (or forever). Components the path never
 * reaches do not run; they are reported as warnings.
 *
 * Pure: runs in the API, in activities and in the workflow sandbox.
 */
import { findRefs } from '../dsl/refs';
import { readCanvasInput, type CanvasInput } from '../dsl/input';
import { formatJsonPath, type PathSegment } from '../dsl/jsonPath';
import { MAX_JSON_DEPTH, valueTooDeep } from '../dsl/jsonShape';
import { parseLenient } from '../dsl/lenientParse';
import { CanvasDslSchema, type CanvasDsl } from '../dsl/schema';
import { isPipelineComponent, PIPELINE_COMPONENT_NAMES, PIPELINE_COMPONENTS } from './registry';
import type { CompiledPipeline, PipelineCompileResult, PipelineComponentName, PipelineProblem, PipelineStep } from './types';

/** The id RAGFlow's pipeline starts from (`self.path.append("File")`). */
export const FILE_ID = 'File';

/** RAGFlow's `canvas_category` of ingestion pipelines, and their templates' `canvas_type`. */
export const PIPELINE_CANVAS_CATEGORY = 'dataflow_canvas';
export const PIPELINE_CANVAS_TYPE = 'Ingestion Pipeline';

function problem(segments: PathSegment[], message: string): PipelineProblem {
  return { path: formatJsonPath(segments), segments, message };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const LEGACY_PIPELINE_NAMES = new Set(['Splitter', 'HierarchicalMerger']);

/**
 * Whether a canvas (bare DSL or export form, object or JSON string) is an ingestion pipeline
 * rather than an agent: RAGFlow's `canvas_category: "dataflow_canvas"` or `canvas_type:
 * "Ingestion Pipeline"` say so; without those, a DSL whose components include a `File` (or a
 * pipeline-only component) and no `Begin` is one.
 */
export function isPipelineDsl(value: unknown): boolean {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return false;
    }
  }
  if (!isObject(v)) return false;
  if (v.canvas_category === PIPELINE_CANVAS_CATEGORY) return true;
  if (typeof v.canvas_type === 'string' && v.canvas_type.trim().toLowerCase() === PIPELINE_CANVAS_TYPE.toLowerCase()) return true;
  if (v.canvas_category === 'agent_canvas') return false;
  const dsl = isObject(v.dsl) && !isObject(v.components) ? v.dsl : v;
  const components = dsl.components;
  if (!isObject(components)) return false;
  const names = Object.values(components).map((c) => (isObject(c) && isObject(c.obj) ? c.obj.component_name : undefined));
  if (names.includes('Begin') || Object.prototype.hasOwnProperty.call(components, 'begin')) return false;
  return names.some((n) => typeof n === 'string' && ((n !== 'Extractor' && n !== 'Compiler' && isPipelineComponent(n)) || LEGACY_PIPELINE_NAMES.has(n)));
}

export interface PipelineCompileOptions {
  /** Path prefix for messages when the DSL sits inside a larger document (e.g. `['dsl']`). */
  base?: PathSegment[];
}

/** The normalized input and what compiling it found (for callers that store the DSL). */
export interface PipelineCompileDetails {
  result: PipelineCompileResult;
  input: CanvasInput;
}

/** Compiles a pipeline canvas; see the module comment. */
export function compilePipeline(dsl: unknown, options: PipelineCompileOptions = {}): PipelineCompileResult {
  return compilePipelineDetailed(dsl, options).result;
}

/** As `compilePipeline`, also returning the normalized input (bare DSL, export metadata, path base). */
export function compilePipelineDetailed(dsl: unknown, options: PipelineCompileOptions = {}): PipelineCompileDetails {
  const input = readCanvasInput(dsl, options.base ?? []);
  return { input, result: compileNormalized(input.dsl, input.base) };
}

function compileNormalized(raw: unknown, base: PathSegment[]): PipelineCompileResult {
  if (valueTooDeep(raw, MAX_JSON_DEPTH)) {
    return { ok: false, problems: [problem(base, `the DSL nests arrays/objects deeper than the limit of ${MAX_JSON_DEPTH} levels`)] };
  }
  if (!isObject(raw)) return { ok: false, problems: [problem(base, 'the pipeline DSL must be a JSON object with "components"')] };
  const parsed = parseLenient(CanvasDslSchema, raw);
  if (!parsed.success) return { ok: false, problems: parsed.issues.map((i) => problem([...base, ...i.path], i.message)) };
  const canvas: CanvasDsl = parsed.data;
  const problems: PipelineProblem[] = [];
  const at = (...segs: PathSegment[]) => [...base, 'components', ...segs];
  const ids = new Set(Object.keys(canvas.components));
  const params = new Map<string, { component: PipelineComponentName; params: Record<string, unknown> }>();
  const upstreamWarnings: PipelineProblem[] = [];

  for (const [id, comp] of Object.entries(canvas.components)) {
    const name = comp.obj.component_name;
    if (!isPipelineComponent(name)) {
      problems.push(problem(at(id, 'obj', 'component_name'), `unknown pipeline component "${name}" (known: ${PIPELINE_COMPONENT_NAMES.join(', ')})`));
    } else {
      const result = parseLenient(PIPELINE_COMPONENTS[name], comp.obj.params);
      if (result.success) params.set(id, { component: name, params: result.data as Record<string, unknown> });
      else for (const issue of result.issues) problems.push(problem(at(id, 'obj', 'params', ...issue.path), issue.message));
    }
    comp.downstream.forEach((d, i) => {
      if (!ids.has(d)) problems.push(problem(at(id, 'downstream', i), `downstream component "${d}" does not exist`));
    });
    // RAGFlow's pipeline never reads `upstream` (the editor's bookkeeping): a stale entry is a warning.
    comp.upstream.forEach((u, i) => {
      if (!ids.has(u))
        upstreamWarnings.push(problem(at(id, 'upstream', i), `upstream component "${u}" does not exist (ignored: a pipeline follows downstream)`));
    });
  }

  const file = canvas.components[FILE_ID];
  if (!file) {
    const misnamed = Object.entries(canvas.components).find(([, c]) => c.obj.component_name === 'File');
    problems.push(
      misnamed
        ? problem(at(misnamed[0]), `the File component must have the id "File" (the pipeline starts there), not "${misnamed[0]}"`)
        : problem([...base, 'components'], 'the pipeline has no "File" component (its entry)'),
    );
  } else if (file.obj.component_name !== 'File') {
    problems.push(problem(at(FILE_ID, 'obj', 'component_name'), `"File" must be a File component, not "${file.obj.component_name}"`));
  }

  // RAGFlow's path: File, then each step's downstream appended in order.
  const path: string[] = [];
  if (file) {
    const seen = new Set<string>([FILE_ID]);
    path.push(FILE_ID);
    for (let i = 0; i < path.length; i++) {
      const comp = canvas.components[path[i]!]!;
      comp.downstream.forEach((d, j) => {
        if (!ids.has(d)) return;
        if (seen.has(d)) {
          const cyclic = reaches(canvas, d, path[i]!);
          problems.push(
            problem(
              at(path[i]!, 'downstream', j),
              cyclic
                ? `"${path[i]}" → "${d}" closes a cycle: a pipeline runs each component once, from File to the end`
                : `"${d}" is reached by more than one path (again from "${path[i]}"): a pipeline runs each component once`,
            ),
          );
          return;
        }
        seen.add(d);
        path.push(d);
      });
    }
    for (const id of path)
      if (canvas.components[id]!.obj.component_name === 'File' && id !== FILE_ID)
        problems.push(problem(at(id, 'obj', 'component_name'), 'only the entry may be a File component'));
  }

  // Extractor prompts read values by reference (`{TokenChunker:X@chunks}`). A step receives the
  // output of the one before it, which carries forward what earlier steps wrote (RAGFlow passes
  // every output on): a reference reads that, so it must name an earlier step whose value no
  // step in between has replaced.
  path.forEach((id, index) => {
    const entry = params.get(id);
    if (!entry || entry.component !== 'Extractor') return;
    const p = entry.params as { sys_prompt?: string; prompts?: Array<{ content?: unknown }> };
    const texts: Array<{ text: string; segs: PathSegment[] }> = [{ text: String(p.sys_prompt ?? ''), segs: ['sys_prompt'] }];
    (p.prompts ?? []).forEach((m, i) => texts.push({ text: typeof m?.content === 'string' ? m.content : '', segs: ['prompts', i, 'content'] }));
    for (const { text, segs } of texts) {
      for (const { ref } of findRefs(text)) {
        if (ref.kind !== 'component') continue;
        const where = at(id, 'obj', 'params', ...segs);
        const from = path.indexOf(ref.componentId);
        if (!ids.has(ref.componentId)) problems.push(problem(where, `reference {${ref.expr}} points to component "${ref.componentId}", which does not exist`));
        else if (from < 0 || from >= index)
          problems.push(problem(where, `reference {${ref.expr}}: "${ref.componentId}" does not run before "${id}" on the path from File`));
        else {
          const replacedBy = path.slice(from + 1, index).find((between) => writes(canvas.components[between]!.obj.component_name).has(ref.output));
          if (replacedBy)
            problems.push(
              problem(
                where,
                `reference {${ref.expr}}: "${replacedBy}" replaces ${ref.output} after "${ref.componentId}", so this step would read "${replacedBy}"'s; reference it instead`,
              ),
            );
        }
      }
    }
  });

  if (problems.length > 0) return { ok: false, problems };
  const steps: PipelineStep[] = path.map((id) => ({ id, component: params.get(id)!.component, params: params.get(id)!.params }));
  const warnings = [
    ...upstreamWarnings,
    ...Object.keys(canvas.components)
      .filter((id) => !path.includes(id))
      .map((id) => problem(at(id), `"${id}" is not on the path from File: it never runs`)),
  ];
  const pipeline: CompiledPipeline = { steps };
  return { ok: true, pipeline, warnings, dsl: parsed.value as Record<string, unknown> };
}

/** The outputs a component writes over its input's (the rest pass through, as in RAGFlow). */
function writes(component: string): Set<string> {
  if (component === 'File') return new Set(['name', 'file']);
  if (component === 'Parser') return new Set(['output_format', 'json', 'markdown', 'text', 'html', 'file']);
  return new Set(['output_format', 'chunks']);
}

/** Whether `to` is reachable from `from` along downstream edges. */
function reaches(canvas: CanvasDsl, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const d of canvas.components[id]?.downstream ?? []) stack.push(d);
  }
  return false;
}
