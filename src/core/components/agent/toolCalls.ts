/**
 * One round of tool calls, whatever the strategy: the model's requests are checked (unknown
 * tools and malformed arguments become error results the model can correct), the valid ones
 * become calls, and the outcomes become tool results, work notices and the `use_tools` trace.
 */
import { jsonrepair } from 'jsonrepair';
import { BLOB_MARKER } from '../blobs';
import type { ActivityCall, McpCallResult, SubAgentResult, ToolInvokeResult } from '../callContracts';
import { summarize } from '../tooling';
import type { CallOutcome, ComponentContext, PlannedCall, WorkNotice, ReferenceAddition } from '../definition';
import type { CatalogEntry } from './catalog';

export interface RequestedCall {
  id: string;
  fn: string;
  /** The model's raw arguments (JSON text, possibly damaged) or an already parsed object. */
  args: string | Record<string, unknown>;
}

export interface PreparedCall {
  id: string;
  fn: string;
  args: Record<string, unknown>;
  /** Why the call cannot be made; sent back to the model as the result. */
  problem?: string;
}

/** One tool use, as `node_finished.outputs.use_tools` and the logs route report it. */
export interface ToolUse {
  name: string;
  function: string;
  arguments: Record<string, unknown>;
  results: string;
  error: string | null;
  elapsed_time: number;
  round: number;
  child_task_id?: string;
}

function parseArgs(raw: string | Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (typeof raw === 'object' && raw !== null) return { ok: true, value: raw };
  const text = (raw ?? '').trim() || '{}';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = JSON.parse(jsonrepair(text));
    } catch (err) {
      return { ok: false, error: `the arguments are not valid JSON (${err instanceof Error ? err.message : String(err)}): ${summarize(text, 200)}` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'the arguments must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** Checks the model's requests against the catalog. */
export function prepareCalls(requested: RequestedCall[], catalog: CatalogEntry[]): PreparedCall[] {
  const byFn = new Map(catalog.map((e) => [e.fn, e]));
  return requested.map((r) => {
    const entry = byFn.get(r.fn);
    if (!entry) return { id: r.id, fn: r.fn, args: {}, problem: `Unknown tool "${r.fn}". Available tools: ${catalog.map((e) => e.fn).join(', ') || 'none'}.` };
    const parsed = parseArgs(r.args);
    if (!parsed.ok) return { id: r.id, fn: r.fn, args: {}, problem: `Could not call ${r.fn}: ${parsed.error}. Call it again with a JSON object of arguments.` };
    const required = (entry.schema.function.parameters as { required?: string[] }).required ?? [];
    const missing = required.filter((k) => parsed.value[k] === undefined || parsed.value[k] === null || parsed.value[k] === '');
    if (missing.length > 0)
      return { id: r.id, fn: r.fn, args: parsed.value, problem: `Could not call ${r.fn}: missing required argument(s) ${missing.join(', ')}.` };
    return { id: r.id, fn: r.fn, args: parsed.value };
  });
}

/** The activity (or child workflow) call for a valid tool call. */
export function callFor(entry: CatalogEntry, args: Record<string, unknown>, ctx: ComponentContext, mcpTimeoutMs: number): ActivityCall {
  switch (entry.kind) {
    case 'component':
      return (
        ctx.toolCall(entry.componentName!, entry.toolParams ?? {}, args, entry.paramsPath!) ?? {
          activity: 'toolInvoke',
          request: { runId: ctx.runId, componentName: entry.componentName!, paramsPath: entry.paramsPath!, args, asTool: true },
        }
      );
    case 'mcp':
      return { activity: 'mcpCall', request: { runId: ctx.runId, mcpId: entry.mcpId!, tool: entry.mcpTool!, args, timeoutMs: mcpTimeoutMs } };
    case 'agent':
      return {
        activity: 'subAgent',
        request: {
          parentRunId: ctx.runId,
          componentId: entry.nestedId!,
          paramsPath: entry.paramsPath!,
          params: entry.agentParams ?? {},
          args,
          globals: { ...ctx.globals },
        },
      };
  }
}

/** The calls to make for the valid requests, in order. */
export function plannedCalls(prepared: PreparedCall[], catalog: CatalogEntry[], ctx: ComponentContext, mcpTimeoutMs: number): PlannedCall[] {
  const byFn = new Map(catalog.map((e) => [e.fn, e]));
  return prepared
    .filter((p) => !p.problem)
    .map((p) => {
      const entry = byFn.get(p.fn)!;
      return {
        call: callFor(entry, p.args, ctx, mcpTimeoutMs),
        summary: `${entry.kind === 'agent' ? 'sub-agent' : 'tool'} ${entry.name} ${summarize(JSON.stringify(p.args), 100)}`,
      };
    });
}

export interface SettledRound {
  /** Tool results for the model, in request order. */
  results: Array<{ id: string; fn: string; text: string }>;
  uses: ToolUse[];
  notices: WorkNotice[];
  reference?: ReferenceAddition;
}

function resultText(
  entry: CatalogEntry | undefined,
  outcome: CallOutcome,
): { text: string; preview: string; error: string | null; elapsed: number; child?: string; reference?: ReferenceAddition } {
  if (!outcome.ok) return { text: `Error: ${outcome.error}`, preview: `Error: ${outcome.error}`, error: outcome.error, elapsed: 0 };
  if (entry?.kind === 'agent') {
    const v = outcome.value as SubAgentResult;
    return { text: v.content, preview: v.content, error: null, elapsed: v.elapsedMs / 1000, child: v.childTaskId };
  }
  if (entry?.kind === 'mcp') {
    const v = outcome.value as McpCallResult;
    return { text: v.isError ? `Error: ${v.text}` : v.text, preview: v.text, error: v.isError ? v.text : null, elapsed: v.elapsedMs / 1000 };
  }
  const v = outcome.value as ToolInvokeResult & { preview?: string };
  return {
    text: v.text,
    preview: v.preview ?? v.text.replace(BLOB_MARKER, '[stored result]'),
    error: null,
    elapsed: v.elapsedMs / 1000,
    reference: v.reference,
  };
}

/** Turns a round's outcomes (one per planned call, in order) into results, events and the trace. */
export function settleRound(prepared: PreparedCall[], outcomes: CallOutcome[], catalog: CatalogEntry[], round: number): SettledRound {
  const byFn = new Map(catalog.map((e) => [e.fn, e]));
  const settled: SettledRound = { results: [], uses: [], notices: [] };
  let next = 0;
  for (const p of prepared) {
    const entry = byFn.get(p.fn);
    const r = p.problem
      ? { text: `Error: ${p.problem}`, preview: p.problem, error: p.problem, elapsed: 0 }
      : resultText(entry, outcomes[next++] ?? { ok: false, error: 'no result' });
    if (r.reference) {
      settled.reference ??= { chunks: {}, doc_aggs: {} };
      Object.assign(settled.reference.chunks, r.reference.chunks);
      Object.assign(settled.reference.doc_aggs, r.reference.doc_aggs);
    }
    const use: ToolUse = {
      name: entry?.name ?? p.fn,
      function: p.fn,
      arguments: p.args,
      results: summarize(r.preview, 2000),
      error: r.error,
      elapsed_time: r.elapsed,
      round,
      ...(r.child ? { child_task_id: r.child } : {}),
    };
    settled.results.push({ id: p.id, fn: p.fn, text: r.text });
    settled.uses.push(use);
    settled.notices.push({
      event: 'tool_call',
      data: {
        round,
        tool_name: use.name,
        function: p.fn,
        arguments: p.args,
        result: summarize(r.preview, 300),
        error: r.error,
        elapsed_time: r.elapsed,
        ...(r.child ? { child_task_id: r.child } : {}),
      },
    });
  }
  return settled;
}
