/**
 * Scale benchmark (`npm run bench -- scale`), issue 37 item 4. (a) One worker process
 * (`server/main.ts`, worker role, PostgreSQL, the default workflow cache) with ever more runs
 * paused at a UserFillUp: its RSS at each step, then the time to answer them all. (b) Many Agent
 * runs at once, each of many ReAct rounds against the scripted model and a local web-search
 * stand-in: the largest history of any run (events and bytes, the server's own count) against
 * Temporal's limits. Steps that would overrun the time budget stop early, and what is
 * extrapolated from them is labelled so. Prints numbers; asserts nothing.
 *
 * BENCH_SCALE_PAUSED (10000), BENCH_SCALE_STEP (2500), BENCH_SCALE_BUDGET_S (1200: seconds for
 * pausing, and again for answering), BENCH_SCALE_AGENTS (100), BENCH_SCALE_ROUNDS (20),
 * BENCH_SCALE_PARTS (paused,agents).
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import { dsl } from '../test/helpers/canvasKit';
import { startWebSearchServer } from '../test/helpers/webSearchServer';
import { submitInputsUpdate } from '../workflows/definitions';
import { printTable, runBench, startBenchEnvironment, startBenchRun } from './common';
import { pauseMany, rssMiB, startPausedEnvironment, startWorker } from './pausedWorker';

const PAUSED = Number(process.env.BENCH_SCALE_PAUSED ?? 10_000);
const STEP = Number(process.env.BENCH_SCALE_STEP ?? 2500);
const BUDGET_MS = Number(process.env.BENCH_SCALE_BUDGET_S ?? 1200) * 1000;
const AGENTS = Number(process.env.BENCH_SCALE_AGENTS ?? 100);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 20);
const PARTS = (process.env.BENCH_SCALE_PARTS ?? 'paused,agents').split(',');

/** Temporal's default limits a run's history must stay under (the server warns at a fifth of each, then fails the run). */
const HISTORY_LIMIT = { events: 10_000, bytes: 10 * 1024 * 1024 };

const load = () => `load ${os.loadavg()[0]!.toFixed(1)}`;

async function pausedAtScale(rows: Array<[string, string]>): Promise<void> {
  const env = await startPausedEnvironment();
  const { pg, server, client, store } = env;
  const taskQueue = `scale-${randomUUID()}`;
  const worker = await startWorker({
    AGENT_CANVAS_ROLE: 'worker',
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: taskQueue,
    LOAD_EXAMPLES: 'false',
    LOG_LEVEL: 'warn',
    API_KEY: 'bench-scale-key',
  });
  await pauseMany(store, client, taskQueue, 20); // warm-up: the workflow bundle is loaded
  await new Promise((r) => setTimeout(r, 3000));
  const base = rssMiB(worker.pid!);
  rows.push([`worker RSS with 0 paused runs (cache 100, the default), MiB [${load()}]`, base.toFixed(0)]);
  const ids: string[] = [];
  const t0 = performance.now();
  while (ids.length < PAUSED && performance.now() - t0 < BUDGET_MS) {
    ids.push(...(await pauseMany(store, client, taskQueue, Math.min(STEP, PAUSED - ids.length))));
    await new Promise((r) => setTimeout(r, 3000));
    const rss = rssMiB(worker.pid!);
    const s = (performance.now() - t0) / 1000;
    rows.push([
      `worker RSS with ${ids.length} paused runs, MiB (paused in ${s.toFixed(0)} s so far) [${load()}]`,
      `${rss.toFixed(0)} (+${(rss - base).toFixed(0)})`,
    ]);
  }
  if (ids.length < PAUSED) {
    const perRun = (rssMiB(worker.pid!) - base) / ids.length;
    rows.push([`EXTRAPOLATED (time budget spent at ${ids.length}): worker RSS at ${PAUSED} paused runs, MiB`, (base + perRun * PAUSED).toFixed(0)]);
  }
  const t1 = performance.now();
  let answered = 0;
  for (let i = 0; i < ids.length && performance.now() - t1 < BUDGET_MS; i += 50) {
    await Promise.all(
      ids.slice(i, i + 50).map(async (id) => {
        const handle = client.workflow.getHandle((await store.runs.getById(id))!.workflow_id);
        await handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: { approved: true } }] });
        await handle.result();
      }),
    );
    answered = Math.min(ids.length, i + 50);
  }
  const answerS = (performance.now() - t1) / 1000;
  rows.push([`answering ${answered} pauses until each run finished, s (${(answered / answerS).toFixed(0)} runs/s) [${load()}]`, answerS.toFixed(0)]);
  if (answered < PAUSED) rows.push([`EXTRAPOLATED at that rate: answering ${PAUSED} pauses, s`, ((PAUSED * answerS) / answered).toFixed(0)]);
  rows.push([`worker RSS after the answers, MiB [${load()}]`, rssMiB(worker.pid!).toFixed(0)]);
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  await env.close();
}

async function agentsAtScale(rows: Array<[string, string]>): Promise<void> {
  const web = await startWebSearchServer({ contentChars: 0 });
  const bench = await startBenchEnvironment({ TAVILY_BASE_URL: web.url });
  const { llm, store, client, worker } = bench;
  // A tool call in each of the first ROUNDS − 1 rounds, then the answer.
  llm.when((call) => {
    const done = call.body.messages.filter((m) => m.role === 'tool').length;
    return done < ROUNDS - 1
      ? { toolCalls: [{ id: `c${done}`, name: 'tavily_search_0', arguments: JSON.stringify({ query: `topic ${done}` }) }] }
      : { content: 'done' };
  });
  const record = await store.canvases.create({
    tenantId: 'bench',
    title: 'scale agents',
    dsl: dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: {
          llm_id: 'bench@OpenAI',
          sys_prompt: 'You research.',
          max_rounds: ROUNDS,
          tools: [{ component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } }],
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    }),
  });
  const deps = { store, client, taskQueue: bench.taskQueue, settings: DEFAULT_RUN_SETTINGS };
  await worker.runUntil(async () => {
    const t = performance.now();
    const handles = await Promise.all(Array.from({ length: AGENTS }, () => startBenchRun(deps, record)));
    const results = (await Promise.all(handles.map((h) => h.result()))) as Array<{ status: string }>;
    const wall = (performance.now() - t) / 1000;
    const finished = results.filter((r) => r.status === 'finished').length;
    let events = 0;
    let bytes = 0;
    let continued = 0;
    for (const h of handles) {
      const d = await h.describe();
      events = Math.max(events, d.historyLength);
      bytes = Math.max(bytes, Number(d.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
      if (d.runId !== d.raw.workflowExecutionInfo?.firstRunId) continued++;
    }
    rows.push([`${AGENTS} Agent runs of ${ROUNDS} rounds at once: finished, wall s [${load()}]`, `${finished}/${AGENTS}, ${wall.toFixed(0)}`]);
    rows.push([`largest history of one run (last execution): events (limit ${HISTORY_LIMIT.events})`, String(events)]);
    rows.push([`largest history of one run (last execution): KiB (limit ${HISTORY_LIMIT.bytes / 1024})`, (bytes / 1024).toFixed(0)]);
    rows.push(['runs that continued as new', String(continued)]);
  });
  await bench.close();
  await web.stop();
}

async function main(): Promise<void> {
  const rows: Array<[string, string]> = [];
  if (PARTS.includes('agents')) await agentsAtScale(rows);
  if (PARTS.includes('paused')) await pausedAtScale(rows);
  printTable(`agent-canvas at scale (${os.cpus().length} cores; load printed beside each figure: other work shares this machine)`, rows);
}

runBench(main);
