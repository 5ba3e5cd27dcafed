/**
 * A running agent-canvas for API tests: the real Fastify app on a real port, a real store, a
 * Temporal worker on the shared dev server, and the scripted model. Requests go over HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { silentLogger } from '../../src/io/log';
import { buildApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import type { ChunkIndex } from '../../src/io/knowledge/chunkIndex';
import { mcpPolicyFromEnv } from '../../src/io/mcp/connect';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from '../../src/core/runSettings';
import { openStore } from '../../src/io/store/store';
import { checkAppendedEvents } from './runEvents';
import type { Store } from '../../src/io/store/contract';
import { startScriptedLlm, type ScriptedLlm } from './scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from './temporal';
import type { RunInputLimits } from '../../api/services/runLimits';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../../api/httpLimits';

export interface Harness {
  base: string;
  store: Store;
  llm: ScriptedLlm;
  temporal: TemporalHandles;
  worker: RunningWorker;
  app: FastifyInstance;
  deps: AppDeps;
  /** Keys of two tenants. */
  key: string;
  /** The secret the store keys API key hashes with. */
  apiKeySecret: string;
  otherKey: string;
  /** Replaces the HTTP API with a fresh instance on the same store (an API restart). */
  restartApi(): Promise<void>;
  close(): Promise<void>;
}

export const TENANT = 'tenant-a';
export const OTHER_TENANT = 'tenant-b';

export interface HarnessOptions {
  databaseUrl?: string;
  /** Worker environment: tool endpoints (TAVILY_BASE_URL), MCP_STDIO_COMMANDS... */
  env?: Record<string, string>;
  /** Serve embeddings from the scripted model server (EMBEDDING_BASE_URL = its URL). */
  scriptedEmbeddings?: boolean;
  /** The knowledge search backend for the worker and the API (default: the store). */
  chunkIndex?: ChunkIndex;
  runSettings?: Partial<RunSettings>;
  /** Size limits of what a run starts with (default: the API's defaults). */
  runInputLimits?: RunInputLimits;
  /** HTTP limits over the defaults (e.g. `authFailureLimit: 0` for a test that sends many bad keys on purpose). */
  httpLimits?: Partial<HttpLimits>;
  /** The worker carries out agent schedules' actions (server/boot/scheduledRuns.ts). */
  schedules?: boolean;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const apiKeySecret = randomBytes(32).toString('hex');
  const [store, llm, temporal] = await Promise.all([openStore({ databaseUrl: opts.databaseUrl, apiKeySecret }), startScriptedLlm(), connectTemporal()]);
  // Every event the API and the worker write must be one the event map describes.
  const eventProblems = checkAppendedEvents(store);
  const key = `key-a-${Math.random().toString(36).slice(2)}`;
  const otherKey = `key-b-${Math.random().toString(36).slice(2)}`;
  await store.tenants.ensure(TENANT, 'A');
  await store.tenants.ensure(OTHER_TENANT, 'B');
  await store.tenants.addApiKey(TENANT, key);
  await store.tenants.addApiKey(OTHER_TENANT, otherKey);
  const env: Record<string, string> = {
    ...opts.env,
    ...(opts.scriptedEmbeddings ? { EMBEDDING_BASE_URL: llm.url, EMBEDDING_API_KEY: 'test', EMBEDDING_MODEL: 'scripted-embed' } : {}),
  };
  const worker = await startWorker({
    nativeConnection: temporal.nativeConnection,
    store,
    llmBaseUrl: llm.url,
    env,
    chunkIndex: opts.chunkIndex,
    ...(opts.schedules ? { scheduleClient: temporal.client } : {}),
  });
  const deps: AppDeps = {
    store,
    temporal: temporal.client,
    taskQueue: worker.taskQueue,
    runSettings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000, ...opts.runSettings },
    log: silentLogger,
    bodyLimit: 1024 * 1024,
    mcp: { policy: mcpPolicyFromEnv(env) },
    knowledge: knowledgeDeps(store, env, opts.chunkIndex),
    ...(opts.runInputLimits ? { runInputLimits: opts.runInputLimits } : {}),
    ...(opts.httpLimits ? { httpLimits: { ...DEFAULT_HTTP_LIMITS, ...opts.httpLimits } } : {}),
  };
  const listen = async () => {
    const app = await buildApp(deps);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app;
  };
  const h: Harness = {
    base: '',
    store,
    llm,
    temporal,
    worker,
    app: await listen(),
    deps,
    key,
    otherKey,
    apiKeySecret,
    async restartApi() {
      await h.app.close();
      h.app = await listen();
      h.base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    },
    async close() {
      await h.app.close();
      await h.worker.stop(); // the one running now (a test may have replaced it)
      await Promise.all([temporal.close(), llm.stop(), store.close()]);
      if (eventProblems.length > 0) throw new Error(`runs wrote events the event map does not describe:\n${eventProblems.join('\n')}`);
    },
  };
  h.base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  return h;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** A JSON request; `key: null` sends no Authorization header. */
export async function api(
  h: Harness,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string | null; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? h.key : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${h.base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (SSE or empty)
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface SseMessage {
  id: string | null;
  data: string;
  json: Record<string, unknown> | null;
}

/** Parses an SSE body into messages (comments skipped). */
export function parseSse(text: string): SseMessage[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((l) => !l.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('data:')))
    .map((lines) => {
      const id =
        lines
          .find((l) => l.startsWith('id:'))
          ?.slice(3)
          .trim() ?? null;
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(data) as Record<string, unknown>;
      } catch {
        json = null;
      }
      return { id, data, json };
    });
}

/** Streams an SSE request, handing each message to `onMessage`; resolves at the end of the stream. */
export async function streamSse(url: string, init: RequestInit, onMessage: (m: SseMessage) => boolean | void): Promise<SseMessage[]> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const all: SseMessage[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut + 2);
        buffer = buffer.slice(cut + 2);
        for (const m of parseSse(block)) {
          all.push(m);
          if (onMessage(m) === true) {
            controller.abort();
            return all;
          }
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return all;
}

/** The run's status once it ended (no longer running or paused), or whatever it is after `timeoutMs`. */
export async function runSettled(h: Harness, runId: string, opts: { key?: string; timeoutMs?: number } = {}): Promise<string> {
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  for (;;) {
    const status = ((await api(h, 'GET', `/api/v1/runs/${runId}`, opts.key ? { key: opts.key } : {})).body as { status: string }).status;
    if (!['running', 'paused'].includes(status) || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 300));
  }
}
