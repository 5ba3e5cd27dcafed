/**
 * A canvas compiled once, outside the workflow, as a run's input carries it. Compiling in the
 * workflow parsed the DSL and every component's params with zod in a fresh sandbox per run, about
 * 17 ms of each run's first workflow task (bench/orchestration.ts). The API compiles a canvas
 * version once (api/services/canvasVersions.ts) and hands the run the parsed DSL with each
 * component's parsed params; the workflow puts the canvas together from them without a schema.
 * The result is the canvas `compileCanvas` gives for the same DSL (src/core/engine/prepared.test.ts).
 */
import type { ExecutionParams } from '../components/definition';
import { componentDef } from '../components/registry';
import type { CanvasDsl } from '../dsl/schema';
import { assembleCanvas, compiledNode, displayNames } from './assemble';
import type { CompiledCanvas, CompiledNode } from './compiled';

/** What a run's input carries beside the parsed DSL (JSON: it travels in the workflow input). */
export interface PreparedCanvas {
  /** Each component's params as the compiler parsed them (defaults filled, legacy names read). */
  params: Record<string, ExecutionParams>;
  /** Loop (Iteration, Loop) → the item its body starts with. */
  loopStarts: Record<string, string>;
}

/** The parsed DSL and what to rebuild the canvas from, for a canvas that compiled. */
export function prepareCanvas(canvas: CompiledCanvas): { dsl: CanvasDsl; prepared: PreparedCanvas } {
  const params: Record<string, ExecutionParams> = {};
  for (const [id, node] of Object.entries(canvas.nodes)) params[id] = node.params;
  return { dsl: canvas.dsl, prepared: { params, loopStarts: { ...canvas.loopStarts } } };
}

/**
 * The canvas from a prepared input, or null when the input does not fit this code's components
 * (a worker older or newer than the API that prepared it): the caller compiles the DSL instead.
 */
export function canvasFromPrepared(dsl: CanvasDsl, prepared: PreparedCanvas): CompiledCanvas | null {
  const names = displayNames(dsl);
  const nodes: Record<string, CompiledNode> = {};
  for (const [id, comp] of Object.entries(dsl.components)) {
    const def = componentDef(comp.obj.component_name);
    const params = prepared.params[id];
    if (!def || !params) return null;
    nodes[id] = compiledNode(id, comp, def, params, names);
  }
  return assembleCanvas(dsl, nodes, prepared.loopStarts);
}
