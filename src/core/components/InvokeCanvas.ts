/**
 * InvokeCanvas: runs another agent canvas of the same tenant as a child run (a child workflow),
 * as a node or as an Agent's tool ("canvas as a tool"). The child's events are mirrored, wrapped
 * as `child_event`, into the parent's stream at this node's place; its answer is this node's
 * `content`. (RAGFlow's `Invoke` is the HTTP request tool; this is ours.)
 */
import { z } from 'zod';
import { parseRef } from '../dsl/refs';
import type { ActivityCall } from './callContracts';
import { executionParamsShape, paramText, str, templateRefs } from './common';
import { readToolNodeResult, summarize } from './tooling';
import type { ComponentContext, ComponentDef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const InvokeCanvasParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    canvas_id: z.string().min(1, 'canvas_id must name the agent (canvas) to run'),
    query: str('{sys.query}'),
    /** Begin inputs of the invoked canvas; string values may be templates or references. */
    inputs: z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown())),
  }),
);

export type InvokeCanvasParams = z.infer<typeof InvokeCanvasParams>;

function renderInputs(p: InvokeCanvasParams, ctx: ComponentContext): Record<string, unknown> {
  return Object.fromEntries(Object.entries(p.inputs).map(([k, v]) => [k, typeof v === 'string' ? paramText(ctx, v) : v]));
}

function invoke(p: InvokeCanvasParams, ctx: ComponentContext, query: string): ActivityCall {
  return { activity: 'invokeCanvas', request: { parentRunId: ctx.runId, componentId: ctx.id, canvasId: p.canvas_id, query, inputs: renderInputs(p, ctx) } };
}

export const InvokeCanvas: ComponentDef<InvokeCanvasParams> = {
  name: 'InvokeCanvas',
  params: InvokeCanvasParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['content', 'outputs', 'task_id'],
  inputRefs: (p) => [
    ...templateRefs(p.query),
    ...Object.values(p.inputs).flatMap((v) => (typeof v === 'string' ? [...templateRefs(v), ...(parseRef(v) ? [parseRef(v)!] : [])] : [])),
  ],
  thoughts: (p) => `Asking the agent ${p.canvas_id}...`,
  tool: {
    meta: (p) => ({
      name: 'invoke_agent',
      description: p.description || `Asks another agent (canvas ${p.canvas_id}) and returns its answer.`,
      parameters: { query: { type: 'string', description: 'What to ask the agent: a complete, self-contained request.', required: true } },
    }),
    call: (p, args, ctx) => invoke(p, ctx, String(args.query ?? '')),
  },
  run(p, ctx) {
    const call = invoke(p, ctx, paramText(ctx, p.query));
    return { kind: 'call', call, summary: `agent ${p.canvas_id}: ${summarize(paramText(ctx, p.query), 100)}`, inputs: { query: paramText(ctx, p.query) } };
  },
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
