/**
 * Variable resolution against a run's state and the {@link ComponentContext} components see.
 */
import type { ChatMessage } from '../components/callContracts';
import type { ComponentContext, VariableWrite } from '../components/definition';
import { getPath, renderTemplate, setPath, type VariableRef } from '../dsl/refs';
import { factoryOf } from '../dsl/modelId';
import { AppError } from '../../errors';
import { componentDef } from '../components/registry';
import type { ToolMeta } from '../components/definition';
import type { CompiledCanvas } from './compile';
import type { RunState } from './state';

/** Reading a reference to no component: RAGFlow's `get_variable_value` message, naming it. */
export function missingComponentMessage(expr: string, componentId: string): string {
  return `Can't find variable: '${expr}' (no component "${componentId}")`;
}

/** The current value of a reference, RAGFlow's `get_variable_value`. */
export function resolveRef(canvas: CompiledCanvas, state: RunState, ref: VariableRef): unknown {
  if (ref.kind === 'global') return state.globals[ref.name];
  if (!canvas.view.has(ref.componentId)) throw new AppError('VARIABLE_NOT_FOUND', missingComponentMessage(ref.expr, ref.componentId));
  const outputs = state.outputs[ref.componentId] ?? {};
  // RAGFlow answers "" for an output that was never set and the stored value (maybe None) otherwise.
  const root = Object.prototype.hasOwnProperty.call(outputs, ref.output) ? outputs[ref.output] : '';
  return ref.path.length === 0 ? root : getPath(root, ref.path);
}

/** Applies a variable write (VariableAssigner) to the state. */
export function applyWrite(state: RunState, write: VariableWrite): void {
  const { ref, value } = write;
  if (ref.kind === 'global') {
    state.globals[ref.name] = value;
    return;
  }
  const outputs = (state.outputs[ref.componentId] ??= {});
  outputs[ref.output] = ref.path.length === 0 ? value : setPath(outputs[ref.output], ref.path, value);
}

/** RAGFlow's `get_history(window)`: the last `window` exchanges (2 entries each). */
export function historyWindow(state: RunState, windowSize: number): ChatMessage[] {
  if (windowSize <= 0) return [];
  return state.history.slice(-windowSize * 2).map(([role, content]) => ({ role, content: String(content ?? '') }));
}

export function makeContext(canvas: CompiledCanvas, state: RunState, id: string, position: number): ComponentContext {
  const resolve = (ref: VariableRef) => resolveRef(canvas, state, ref);
  const ctx: ComponentContext = {
    id,
    runId: state.runId,
    paramsPath: canvas.origins[id] ?? ['components', id, 'obj', 'params'],
    canvas: canvas.view,
    resolve,
    render: (text) => renderTemplate(text, resolve),
    globals: state.globals,
    history: (windowSize) => historyWindow(state, windowSize),
    runInputs: state.inputs.values,
    path: state.path,
    position,
    outputsOf: (other) => state.outputs[other] ?? {},
    hasReference: () => Object.keys(state.reference.chunks).length > 0,
    paramsOf: (other) => (canvas.nodes[other]?.params ?? {}) as unknown as Readonly<Record<string, unknown>>,
    supportsToolCalling: (llmId) => {
      const table = state.toolCalling;
      if (!table) return true;
      return table.byFactory[factoryOf(llmId.trim() || table.defaultModelId, table.defaultFactory)] ?? true;
    },
    describeTool: (componentName, params) => describeTool(componentName, params),
    loopPass: Math.max(0, state.loops[id] ?? 0),
    parallelItems: state.parallelItems === true,
    form: {
      values: state.form.submitted,
      expired: state.form.expired !== null,
      waitedS: state.form.expired?.waitedS ?? state.form.escalated?.waitedS ?? null,
      escalated: (state.form.escalated ?? null) !== null,
    },
    webhook: state.inputs.webhook,
    toolCall: (componentName, params, args, paramsPath) => {
      const def = componentDef(componentName);
      const parsed = def?.tool?.call ? def.params.safeParse(params ?? {}) : null;
      return parsed?.success ? def!.tool!.call!(parsed.data, args, ctx, paramsPath) : null;
    },
  };
  return ctx;
}

/** A tool component's description for the model, or why it cannot be a tool. */
export function describeTool(componentName: string, params: unknown): { meta: ToolMeta } | { error: string } {
  const def = componentDef(componentName);
  if (!def) return { error: `unknown component "${componentName}"` };
  if (!def.tool) return { error: `${componentName} cannot be used as a tool` };
  const parsed = def.params.safeParse(params ?? {});
  if (!parsed.success) return { error: `${componentName} params: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  return { meta: def.tool.meta(parsed.data) };
}
