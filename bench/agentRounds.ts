/**
 * Agent benchmarks (`npm run bench`): what Temporal adds per ReAct round (one model call and one
 * tool call, each an activity) over the same engine run in-process with the same activities, and
 * how big the workflow history of a 20-round agent run gets. The model is the scripted server
 * with zero latency and the web-search API a local stand-in, so the numbers are orchestration.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { LlmChatRequest, ToolInvokeRequest } from '../src/core/components/callContracts';
import { compileCanvas, runInProcess, type CallResult, type EngineCall } from '../src/core/engine';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import { dsl } from '../test/helpers/canvasKit';
import { startWebSearchServer } from '../test/helpers/webSearchServer';
import { median, printTable, runBench, startBenchEnvironment, startBenchRun } from './common';

const ROUNDS = Number(process.env.BENCH_AGENT_ROUNDS ?? 20);
const REPEATS = Number(process.env.BENCH_AGENT_REPEATS ?? 5);

function agentDsl(rounds: number): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Agent:a'] },
    'Agent:a': {
      name: 'Agent',
      params: {
        llm_id: 'bench@OpenAI',
        sys_prompt: 'You research.',
        max_rounds: rounds,
        tools: [{ component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } }],
      },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
  });
}

async function main(): Promise<void> {
  const rows: Array<[string, string]> = [];
  for (const contentChars of [0, 2000]) {
    const web = await startWebSearchServer({ contentChars });
    const bench = await startBenchEnvironment({ TAVILY_BASE_URL: web.url });
    const { llm, store, client, worker, activities } = bench;
    // Every round calls the search tool once, until `ROUNDS` results are in; then it answers.
    llm.when((call) => {
      const done = call.body.messages.filter((m) => m.role === 'tool').length;
      return done < ROUNDS
        ? { toolCalls: [{ id: `c${done}`, name: 'tavily_search_0', arguments: JSON.stringify({ query: `topic ${done}` }) }] }
        : { content: 'done' };
    });
    const canvasDsl = agentDsl(ROUNDS);
    const compiled = compileCanvas(canvasDsl);
    if (!compiled.ok) throw new Error('bench canvas invalid');
    const record = await store.canvases.create({ tenantId: 'bench', title: `agent-${contentChars}`, dsl: canvasDsl });
    const exec = async (call: EngineCall): Promise<CallResult> => {
      // A fresh context per call, as a worker gives each activity its own.
      const mockEnv = new MockActivityEnvironment();
      const c = call.call;
      const value =
        c.activity === 'llmChat'
          ? await mockEnv.run(activities.llmChat, c.request as LlmChatRequest, { maxRetries: 0 })
          : await mockEnv.run(activities.toolInvoke, c.request as ToolInvokeRequest, { maxRetries: 0 });
      return { callId: call.callId, ok: true, value };
    };
    const deps = { store, client, taskQueue: bench.taskQueue, settings: DEFAULT_RUN_SETTINGS };

    const local: number[] = [];
    const temporal: number[] = [];
    let history = { events: 0, bytes: 0 };
    await worker.runUntil(async () => {
      for (let r = 0; r < REPEATS + 1; r++) {
        const runId = `local-${contentChars}-${r}`;
        await store.runs.create({ id: runId, tenantId: 'bench', canvasId: record.id, sessionId: null, workflowId: runId, canvasVersionId: record.version_id });
        let t = performance.now();
        const inProc = await runInProcess(compiled.canvas, { runId, messageId: 'm', query: 'q' }, exec);
        const a = performance.now() - t;
        if (inProc.state.status !== 'finished') throw new Error(`in-process run ended ${inProc.state.status}: ${inProc.state.error}`);
        t = performance.now();
        const handle = await startBenchRun(deps, record);
        const result = (await handle.result()) as { status: string };
        const b = performance.now() - t;
        if (result.status !== 'finished') throw new Error(`workflow run ended ${result.status}`);
        if (r >= 1) {
          local.push(a);
          temporal.push(b);
        }
        const d = await handle.describe();
        history = { events: d.historyLength, bytes: Number(d.raw.workflowExecutionInfo?.historySizeBytes ?? 0) };
      }
    });
    const size = contentChars === 0 ? 'small results (~150 B)' : `~${(2 * contentChars) / 1000} KB results`;
    if (contentChars === 0) {
      rows.push([`${ROUNDS}-round agent, in-process engine, median ms`, median(local).toFixed(0)]);
      rows.push([`${ROUNDS}-round agent, Temporal workflow, median ms`, median(temporal).toFixed(0)]);
      rows.push(['agent round overhead (model call + tool call as activities), ms per round', ((median(temporal) - median(local)) / ROUNDS).toFixed(1)]);
    }
    rows.push([`${ROUNDS}-round agent history, ${size}: events`, String(history.events)]);
    rows.push([`${ROUNDS}-round agent history, ${size}: KB`, (history.bytes / 1024).toFixed(0)]);
    await bench.close();
    await web.stop();
  }
  printTable(`agent-canvas agent benchmark (${REPEATS} repeats, zero-latency scripted model, local web-search stand-in)`, rows);
}

runBench(main);
