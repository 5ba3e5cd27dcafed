/**
 * The trace of an agent's webhook test calls (`/agents/{id}/webhook/test`), as RAGFlow keeps it
 * for its editor's "listen for a test request" panel: per agent, each test call (keyed by its
 * start time) with its run's events stamped with `ts`, then `{event: "finished", elapsed_time,
 * success}`. RAGFlow keeps it in Redis for 10 minutes after the last write; here it lives in the
 * API process's memory for the same 10 minutes (an editor polls the process it tested through).
 *
 * `GET /agents/{id}/webhook/logs?since_ts=&webhook_id=` reads it with RAGFlow's protocol: without
 * `since_ts`, nothing and `next_since_ts` = now; without `webhook_id`, the first test call after
 * `since_ts` (its `webhook_id`, no events yet); with both, that call's events after `since_ts`,
 * and `finished` once its final event is among them.
 */
import { createHmac } from 'node:crypto';
import { isEvent } from '../../src/core/engine/runEvents';
import type { Store } from '../../src/io/store/contract';
import { followRunEvents } from './eventStream';

const TTL_MS = 600_000;
/** RAGFlow's constant key for webhook ids (they only need to be opaque, not secret). */
const WEBHOOK_ID_SECRET = 'webhook_id_secret';

interface Call {
  startTs: number;
  events: Array<Record<string, unknown> & { ts: number }>;
}

interface AgentTrace {
  calls: Map<string, Call>;
  expires: number;
}

const traces = new Map<string, AgentTrace>();

function sweep(now: number): void {
  for (const [agentId, t] of traces) if (t.expires <= now) traces.delete(agentId);
}

/** RAGFlow's webhook id: HMAC-SHA256 of the start time's text, URL-safe base64 without padding. */
export function encodeWebhookId(startKey: string): string {
  return createHmac('sha256', WEBHOOK_ID_SECRET).update(startKey, 'utf8').digest('base64url');
}

/** Seconds since the epoch, as Python's time.time(). */
export const nowSeconds = (): number => Date.now() / 1000;

/** Records one event of the test call that started at `startTs` (seconds). */
export function appendWebhookTrace(agentId: string, startTs: number, event: Record<string, unknown>): void {
  const now = Date.now();
  sweep(now);
  const trace = traces.get(agentId) ?? { calls: new Map<string, Call>(), expires: 0 };
  trace.expires = now + TTL_MS;
  traces.set(agentId, trace);
  const key = String(startTs);
  const call = trace.calls.get(key) ?? { startTs, events: [] };
  trace.calls.set(key, call);
  call.events.push({ ...event, ts: nowSeconds() });
}

export interface WebhookTraceAnswer {
  webhook_id: string | null;
  events: Array<Record<string, unknown>>;
  next_since_ts: number;
  finished: boolean;
}

export function webhookTraceSince(agentId: string, sinceTs: number | null, webhookId: string | null): WebhookTraceAnswer {
  sweep(Date.now());
  if (sinceTs === null) return { webhook_id: null, events: [], next_since_ts: nowSeconds(), finished: false };
  const trace = traces.get(agentId);
  if (!trace) return { webhook_id: null, events: [], next_since_ts: sinceTs, finished: false };
  if (webhookId === null) {
    const later = [...trace.calls.values()].filter((c) => c.startTs > sinceTs).sort((a, b) => a.startTs - b.startTs);
    const first = later[0];
    if (!first) return { webhook_id: null, events: [], next_since_ts: sinceTs, finished: false };
    return { webhook_id: encodeWebhookId(String(first.startTs)), events: [], next_since_ts: first.startTs, finished: false };
  }
  const call = [...trace.calls.entries()].find(([key]) => encodeWebhookId(key) === webhookId)?.[1];
  if (!call) return { webhook_id: webhookId, events: [], next_since_ts: sinceTs, finished: true };
  const events = call.events.filter((e) => e.ts > sinceTs);
  const next = events.reduce((m, e) => Math.max(m, e.ts), sinceTs);
  return { webhook_id: webhookId, events, next_since_ts: next, finished: events.some((e) => e.event === 'finished') };
}

/** A test call's run, traced for `/webhook/logs` as RAGFlow traces it (its events, then `finished`). */
export async function traceTestCall(store: Store, agentId: string, runId: string, startTs: number): Promise<void> {
  let error: string | null = null;
  try {
    for await (const e of followRunEvents(store, runId, {
      after: null,
      signal: AbortSignal.timeout(600_000),
      stopAfter: (ev) => ev.event === 'user_inputs',
    })) {
      appendWebhookTrace(agentId, startTs, { event: e.event, message_id: e.message_id, created_at: e.created_at, task_id: e.task_id, data: e.data });
      if (isEvent(e, 'run_failed')) error = String(e.data.error ?? 'the run failed');
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const finished = { event: 'finished', elapsed_time: nowSeconds() - startTs, success: error === null };
  appendWebhookTrace(agentId, startTs, error === null ? finished : { ...finished, error });
}
