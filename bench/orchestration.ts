/**
 * Orchestration benchmarks (`npm run bench`): what Temporal adds per node over the same engine run
 * in-process, time-to-first-token added over the raw model stream, and runs per second of one
 * worker. The model is the scripted OpenAI-compatible server with zero latency, so the numbers
 * are orchestration only. Prints a table; asserts nothing.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { silentLogger } from '../src/io/log';
import { buildApp } from '../api/app';
import type { LlmChatRequest } from '../src/core/components/callContracts';
import { compileCanvas, runInProcess, type CallResult, type EngineCall } from '../src/core/engine';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import { dsl } from '../test/helpers/canvasKit';
import { median, printTable, REPEATS, runBench, startBenchEnvironment, startBenchRun } from './common';

function chain(kind: 'activity' | 'inline', n: number): Record<string, unknown> {
  const nodes: Record<string, { name: string; params?: Record<string, unknown>; downstream?: string[] }> = { begin: { name: 'Begin', downstream: ['N:0'] } };
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? [`N:${i + 1}`] : [];
    nodes[`N:${i}`] =
      kind === 'activity'
        ? { name: 'LLM', params: { llm_id: 'bench@OpenAI', sys_prompt: `step ${i}` }, downstream: next }
        : { name: 'VariableAssigner', params: { variables: [{ variable: 'env.n', operator: '+=', parameter: 1 }] }, downstream: next };
  }
  return dsl(nodes, { variables: { n: { name: 'n', type: 'number', value: 0 } } });
}

async function main(): Promise<void> {
  const bench = await startBenchEnvironment();
  const { llm, store, client, worker, activities } = bench;
  llm.when(() => ({ content: 'ok' }));
  const deps = { store, client, taskQueue: 'bench', settings: DEFAULT_RUN_SETTINGS };
  const mockEnv = new MockActivityEnvironment();
  const exec = async (call: EngineCall): Promise<CallResult> => {
    const value = await mockEnv.run(activities.llmChat, call.call.request as LlmChatRequest, { maxRetries: 0 });
    return { callId: call.callId, ok: true, value };
  };
  const rows: Array<[string, string]> = [];

  await worker.runUntil(async () => {
    // Per-node overhead is the slope between a short and a long chain (the fixed cost of starting
    // and closing a run cancels out); the fixed cost is what a one-node run adds.
    const time = async (kind: 'activity' | 'inline', n: number) => {
      const canvasDsl = chain(kind, n);
      const compiled = compileCanvas(canvasDsl);
      if (!compiled.ok) throw new Error('bench canvas invalid');
      const record = await store.canvases.create({ tenantId: 'bench', title: `chain-${kind}-${n}`, dsl: canvasDsl });
      const local: number[] = [];
      const temporal: number[] = [];
      for (let r = 0; r < REPEATS + 2; r++) {
        let t = performance.now();
        await runInProcess(compiled.canvas, { runId: `r${r}`, messageId: 'm', query: 'q' }, exec);
        const a = performance.now() - t;
        t = performance.now();
        const handle = await startBenchRun(deps, record);
        await handle.result();
        const b = performance.now() - t;
        if (r >= 2) {
          local.push(a);
          temporal.push(b);
        }
      }
      return { local: median(local), temporal: median(temporal) };
    };
    for (const kind of ['activity', 'inline'] as const) {
      const short = await time(kind, 1);
      const long = await time(kind, 11);
      const perNodeTemporal = (long.temporal - short.temporal) / 10;
      const perNodeLocal = (long.local - short.local) / 10;
      rows.push([`${kind} node: in-process engine, ms per node`, perNodeLocal.toFixed(1)]);
      rows.push([`${kind} node: Temporal workflow, ms per node`, perNodeTemporal.toFixed(1)]);
      rows.push([`${kind} node: orchestration overhead, ms per node (median-based)`, (perNodeTemporal - perNodeLocal).toFixed(1)]);
      if (kind === 'inline') rows.push(['fixed cost of a run (start, finalize, result), ms', (short.temporal - short.local).toFixed(1)]);
    }

    // Time to first token: raw model stream vs our API's SSE stream.
    const raw = new OpenAI({ baseURL: llm.url, apiKey: 'x', maxRetries: 0 });
    const rawTtft: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t = performance.now();
      const stream = await raw.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const _ of stream) {
        rawTtft.push(performance.now() - t);
        break;
      }
    }
    await store.tenants.addApiKey('bench', 'bench-key');
    const app = await buildApp({ store, temporal: client, taskQueue: 'bench', runSettings: DEFAULT_RUN_SETTINGS, log: silentLogger });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const streamDsl = dsl({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI' }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
    });
    const agent = await store.canvases.create({ tenantId: 'bench', title: 'ttft', dsl: streamDsl });
    const apiTtft: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t = performance.now();
      const res = await fetch(`${base}/api/v1/agents/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agent.id, query: 'hi', stream: true }),
      });
      const reader = res.body!.getReader();
      let buf = '';
      let got = false;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
        if (!got && buf.includes('"event":"message"')) {
          apiTtft.push(performance.now() - t);
          got = true;
        }
      }
    }
    rows.push(['time to first token, raw model stream, median ms', median(rawTtft).toFixed(1)]);
    rows.push(['time to first token through API + Temporal (new run), median ms', median(apiTtft).toFixed(1)]);
    rows.push(['time to first token added, median ms', (median(apiTtft) - median(rawTtft)).toFixed(1)]);

    // Throughput: many small runs at once on one worker.
    const total = Number(process.env.BENCH_RUNS ?? 100);
    const small = await store.canvases.create({ tenantId: 'bench', title: 'throughput', dsl: streamDsl });
    const t = performance.now();
    await Promise.all(
      Array.from({ length: total }, async () => {
        const handle = await startBenchRun(deps, small);
        await handle.result();
      }),
    );
    const seconds = (performance.now() - t) / 1000;
    rows.push([`runs per second, one worker (${total} runs of Begin → LLM → Message)`, (total / seconds).toFixed(1)]);
    await app.close();
  });

  printTable(`agent-canvas orchestration benchmark (${REPEATS} repeats, zero-latency scripted model)`, rows);
  await bench.close();
}

runBench(main);
