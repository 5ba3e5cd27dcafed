/**
 * Concurrent starts (`npm run bench starts`): N clients (default 200) each open a streaming
 * completion on a Begin → LLM → Message canvas at the same moment, through the HTTP API with the
 * worker in the same process (the all-in-one `npm start` shape, embedded store). Prints the time
 * from request to the first SSE event and to `workflow_finished` (p50, p95, max). The model is the
 * zero-latency scripted server, so what is measured is starting and running, not the model.
 */
import { silentLogger } from '../activities/log';
import { buildApp } from '../api/app';
import { DEFAULT_RUN_SETTINGS } from '../src/runSettings';
import { dsl } from '../test/helpers/canvasKit';
import { printTable, runBench, startBenchEnvironment } from './common';

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

interface StreamTiming {
  firstEvent: number | null;
  finished: number | null;
  error: string | null;
}

/** One streaming completion, read to its end; times are ms from the request. */
async function timeStream(base: string, agentId: string, i: number): Promise<StreamTiming> {
  const t = performance.now();
  const timing: StreamTiming = { firstEvent: null, finished: null, error: null };
  try {
    const res = await fetch(`${base}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agentId, query: `question ${i}`, stream: true }),
    });
    if (!res.ok || !res.body) return { ...timing, error: `HTTP ${res.status}` };
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      if (timing.firstEvent === null && buf.includes('data:')) timing.firstEvent = performance.now() - t;
      if (timing.finished === null && buf.includes('"event":"workflow_finished"')) timing.finished = performance.now() - t;
    }
    if (timing.finished === null) timing.error = buf.includes('"code":') ? 'stream ended with an error' : 'stream ended before workflow_finished';
  } catch (err) {
    timing.error = err instanceof Error ? err.message : String(err);
  }
  return timing;
}

async function main(): Promise<void> {
  const streams = Number(process.env.BENCH_STREAMS ?? 200);
  const bench = await startBenchEnvironment();
  const { llm, store, client, worker } = bench;
  llm.when(() => ({ content: 'a short answer' }));
  await store.tenants.addApiKey('bench', 'bench-key');
  const app = await buildApp({ store, temporal: client, taskQueue: bench.taskQueue, runSettings: DEFAULT_RUN_SETTINGS, log: silentLogger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const canvas = dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });
  const agent = await store.canvases.create({ tenantId: 'bench', title: 'concurrent starts', dsl: canvas });
  const rows: Array<[string, string]> = [];
  await worker.runUntil(async () => {
    // A few runs first, so the worker's bundle and the connections are warm.
    await Promise.all(Array.from({ length: 3 }, (_, i) => timeStream(base, agent.id, i)));
    const t = performance.now();
    const timings = await Promise.all(Array.from({ length: streams }, (_, i) => timeStream(base, agent.id, i)));
    const wall = performance.now() - t;
    const first = timings.flatMap((x) => (x.firstEvent === null ? [] : [x.firstEvent]));
    const done = timings.flatMap((x) => (x.finished === null ? [] : [x.finished]));
    const errors = timings.filter((x) => x.error !== null);
    const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${percentile(xs, 100).toFixed(0)} ms`;
    rows.push([`streams started at once`, String(streams)]);
    rows.push(['request → first SSE event', fmt(first)]);
    rows.push(['request → workflow_finished', fmt(done)]);
    rows.push(['finished / failed', `${done.length} / ${errors.length}${errors[0] ? ` (first: ${errors[0].error})` : ''}`]);
    rows.push(['wall time for all, s', (wall / 1000).toFixed(1)]);
  });
  await app.close();
  printTable('agent-canvas concurrent starts (all-in-one, embedded store, zero-latency scripted model)', rows);
  await bench.close();
}

runBench(main);
