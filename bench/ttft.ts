/**
 * Time to first token for the orchestration bench (bench/orchestration.ts): API request → first
 * `message` event at the client, less the raw model's own time to first token, beside its
 * same-work floor. That floor is the bare harness's start → activity running plus the store
 * statements the API makes before it can start the run (the auth lookup, the run row and its
 * first event...): the statements timed one by one between the request and the API's
 * `workflow.start` call, so that only the API's own, serial work is counted (no run exists yet).
 */
import type { Client } from '@temporalio/client';
import OpenAI from 'openai';
import { pooledFetch } from '../src/io/net';
import { median } from './common';
import { sampled } from './chainRepeats';
import { floorStartToActivity, type FloorWorker } from './floor/harness';
import { DbMeter } from './startPhases';

/** A DbMeter that also keeps when each statement began and ended, while `recording`. */
export class TimedDbMeter extends DbMeter {
  recording = false;
  readonly spans: Array<{ label: string; start: number; end: number }> = [];

  override async time<T>(sql: string, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await super.time(sql, run);
    } finally {
      if (this.recording) this.spans.push({ label: DbMeter.label(sql), start, end: performance.now() });
    }
  }
}

export interface TtftSample {
  /** The bare floor: start → activity running. */
  floor: number;
  /** The API's store statements before its `workflow.start` call (sum of their times). */
  apiStatements: number;
  /** How many statements those were. */
  apiStatementCount: number;
  raw: number;
  api: number;
  tokenPath: number;
}

export interface TtftDeps {
  base: string;
  agentId: string;
  tokenAgentId: string;
  modelUrl: string;
  meter: TimedDbMeter;
  /** The client the API starts runs with (its `workflow.start` is watched). */
  client: Client;
  floor: FloorWorker;
  /** When the model sent the token-path canvas's first token (performance.now()). */
  modelFirstToken: () => number;
}

/** API request → first `message` event at the client, and that moment (performance.now()). */
export async function firstMessage(base: string, agentId: string, query = 'hi'): Promise<{ after: number; at: number }> {
  const t = performance.now();
  const res = await fetch(`${base}/api/v1/agents/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: agentId, query, stream: true }),
  });
  if (!res.ok || !res.body) throw new Error(`"${query}": HTTP ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let at = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    if (at === 0 && buf.includes('"event":"message"')) at = performance.now();
  }
  if (at === 0) throw new Error(`"${query}": the stream had no message event`);
  return { after: at - t, at };
}

/** `repeats` samples (after two warm-ups) of every figure, each sample's sides seconds apart. */
export async function measureTtft(repeats: number, deps: TtftDeps): Promise<TtftSample[]> {
  // Through the client our model calls use, so that what is subtracted is the model's own time.
  const raw = new OpenAI({ baseURL: deps.modelUrl, apiKey: 'x', maxRetries: 0, fetch: pooledFetch });
  let startCalledAt = 0;
  const workflows = deps.client.workflow;
  const start = workflows.start.bind(workflows);
  workflows.start = ((...args: Parameters<typeof start>) => {
    startCalledAt ||= performance.now();
    return start(...args);
  }) as typeof start;
  try {
    return await sampled(repeats, async () => {
      const t = performance.now();
      const stream = await raw.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let rawTtft = 0;
      for await (const _ of stream) rawTtft ||= performance.now() - t;
      deps.meter.spans.length = 0;
      startCalledAt = 0;
      deps.meter.recording = true;
      const requestAt = performance.now();
      const api = await firstMessage(deps.base, deps.agentId);
      deps.meter.recording = false;
      const before = deps.meter.spans.filter((s) => s.start >= requestAt && s.end <= startCalledAt);
      const token = await firstMessage(deps.base, deps.tokenAgentId);
      return {
        floor: await floorStartToActivity(deps.floor.client, deps.floor),
        apiStatements: before.reduce((sum, s) => sum + s.end - s.start, 0),
        apiStatementCount: before.length,
        raw: rawTtft,
        api: api.after,
        tokenPath: token.at - deps.modelFirstToken(),
      };
    });
  } finally {
    workflows.start = start;
  }
}

/** The median of one figure over the samples. */
export const ttftMedian = (samples: TtftSample[], k: keyof TtftSample): number => median(samples.map((x) => x[k]));
