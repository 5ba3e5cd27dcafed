/**
 * Shared by tool components (usable as canvas nodes and as Agent tools): their function schema
 * for the model, and running them as a canvas node through the `toolInvoke` activity.
 */
import type { ToolInvokeResult, ToolSchema } from './callContracts';
import type { ComponentContext, Outcome, ToolMeta } from './definition';

/** OpenAI function names: letters, digits, `_` and `-`, at most 64. */
export function functionName(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return (cleaned || 'tool').slice(0, 64);
}

/** The JSON schema the model sees for a tool. */
export function toolSchema(fn: string, meta: ToolMeta): ToolSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(meta.parameters)) {
    properties[name] = { type: p.type, description: p.description, ...(p.enum ? { enum: p.enum } : {}), ...(p.items ? { items: p.items } : {}) };
    if (p.required) required.push(name);
  }
  return { type: 'function', function: { name: fn, description: meta.description, parameters: { type: 'object', properties, required } } };
}

/** A short, single-line view of a tool result for progress events and logs. */
export function summarize(text: string, max = 500): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Runs a tool component as a canvas node: its arguments come from its own params. */
export function runToolNode(componentName: string, ctx: ComponentContext, args: Record<string, unknown>): Outcome {
  return {
    kind: 'call',
    call: { activity: 'toolInvoke', request: { runId: ctx.runId, componentName, paramsPath: ctx.paramsPath, args } },
    summary: `${componentName} ${summarize(JSON.stringify(args), 120)}`,
    inputs: args,
  };
}

/** The outputs of a tool that ran as a canvas node. */
export function readToolNodeResult(result: unknown): Outcome {
  const r = result as ToolInvokeResult;
  return { kind: 'done', outputs: { ...r.outputs }, ...(r.reference ? { reference: r.reference } : {}) };
}
