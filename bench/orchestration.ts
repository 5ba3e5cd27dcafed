/**
 * Orchestration benchmarks (`npm run bench`): agent-canvas beside a bare Temporal harness (the
 * floor, bench/floor/) on the same dev server, in the same process and run, interleaved so
 * that load from elsewhere hits both alike; every figure is printed with its ratio to the floor.
 * What a node, a run, the first token and throughput cost, and the round trips behind them
 * (history events, workflow tasks, local activities, store statements). The model is the scripted
 * OpenAI-compatible server with zero latency, so the numbers are orchestration only. Prints
 * tables; asserts nothing.
 */
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { silentLogger } from '../src/io/log';
import { buildApp } from '../api/app';
import type { LlmChatRequest } from '../src/core/components/callContracts';
import { compileCanvas, runInProcess, type CallResult, type CompiledCanvas, type EngineCall } from '../src/core/engine';
import { DEFAULT_RUN_SETTINGS } from '../src/core/runSettings';
import type { CanvasRecord } from '../src/io/store/contract';
import { dsl } from '../test/helpers/canvasKit';
import { chainCanvas, median, REPEATS, runBench, startBenchEnvironment, startBenchRun, table } from './common';
import { createFloorWorker, runsPerSecond, timeFloor } from './floor/harness';
import { measureTtft, TimedDbMeter, ttftMedian, type TtftSample } from './ttft';
import { targetRows, TARGET_HEADER, type TargetFigure } from './targets';
import { printSnapshotCost, snapshotCostRows } from './snapshotCost';
import { medianAt, medianSlope, pairedRatio, repeatChains } from './chainRepeats';
import { historyCounts, medianRows, PHASE_NAMES, PHASE_RUNS, phaseMedians, RUN_SPAN_NAMES, spansOf, type Phase, type RunSpan } from './historyPhases';

/** Chain lengths the per-node slope is fitted over (BENCH_CHAIN=1,11,21). */
const CHAIN = (process.env.BENCH_CHAIN ?? '1,11').split(',').map(Number);
const LANES = 20;
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
/** Alternating throughput rounds (floor, ours, floor, ours…) whose medians are compared. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function streamCanvas(sysPrompt: string): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'b@OpenAI', sys_prompt: sysPrompt }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });
}

/** What each repeat times at each chain length (the empty and durable-end floors at the shortest only). */
type ChainSide = 'floorActivity' | 'floorModel' | 'floorLocal' | 'ours' | 'oursNoSnapshots' | 'oursInline' | 'floorEmpty' | 'floorDurable' | 'inProcess';

const ms = (x: number) => x.toFixed(1);
const ratio = (ours: number, floor: number) => `${(ours / floor).toFixed(2)}×`;

async function main(): Promise<void> {
  const load = [os.loadavg()[0]!];
  const meter = new TimedDbMeter();
  const bench = await startBenchEnvironment({}, { wrapDb: (db) => meter.wrap(db) });
  const { llm, store, client, worker, activities } = bench;
  const floor = await createFloorWorker(bench.address, { modelUrl: llm.url });
  /** When the model sent the token-path canvas's first token (performance.now()). */
  let modelFirstToken = 0;
  llm.when((call) =>
    call.body.messages.some((m) => m.content === 'tokenpath')
      ? // Held until the run waits on the stream, so what is timed is the token's way alone.
        { until: delay(30).then(() => (modelFirstToken = performance.now())), then: { content: 'ok and more' } }
      : undefined,
  );
  llm.when(() => ({ content: 'ok' }));
  const deps = { store, client, taskQueue: bench.taskQueue, settings: DEFAULT_RUN_SETTINGS };
  const exec = async (call: EngineCall): Promise<CallResult> => {
    // One environment per call, as each activity attempt has its own context and signal.
    const value = await new MockActivityEnvironment().run(activities.llmChat, call.call.request as LlmChatRequest, { maxRetries: 0 });
    return { callId: call.callId, ok: true, value };
  };
  const figures: string[][] = [];
  const snapshotRows: string[][] = []; // a node's time with and without batch snapshots (RUN_SNAPSHOTS=off), time travel's cost
  const counts: string[][] = [];
  /** Issue 37's targets against the same-work floors (bench/targets.ts). */
  const targets: TargetFigure[] = [];
  /** Where a node's time goes in the longest chain (medians of a few runs' history times). */
  const phases: Record<'floor' | 'floorModel' | 'ours', Array<Record<Phase, number>>> = { floor: [], floorModel: [], ours: [] };
  /** Where the fixed cost goes: the shortest runs' time (start call → result) split by their histories. */
  const spans: Record<'floorEmpty' | 'floorDurable' | 'ours', Array<Record<RunSpan, number>>> = { floorEmpty: [], floorDurable: [], ours: [] };
  const noSnapshots = { ...deps, settings: { ...DEFAULT_RUN_SETTINGS, snapshots: false } };
  const timeRun = async (record: CanvasRecord, launch = deps) => {
    const t = performance.now();
    await (await startBenchRun(launch, record)).result();
    return performance.now() - t;
  };

  await floor.worker.runUntil(
    worker.runUntil(async () => {
      // Per node: the slope over chains of several lengths (a run's fixed cost cancels out). A
      // run's fixed cost, ours and the floor's (an empty run, and one that records its end with a
      // local activity, as any durable run must), is measured in the same repeats as the chains.
      const canvases = new Map<number, { compiled: CompiledCanvas; activity: CanvasRecord; inline: CanvasRecord }>();
      for (const n of CHAIN) {
        const activityDsl = chainCanvas('activity', n);
        const compiled = compileCanvas(activityDsl);
        if (!compiled.ok) throw new Error('bench canvas invalid');
        const activity = await store.canvases.create({ tenantId: 'bench', title: `chain-activity-${n}`, dsl: activityDsl });
        const inline = await store.canvases.create({ tenantId: 'bench', title: `chain-inline-${n}`, dsl: chainCanvas('inline', n) });
        canvases.set(n, { compiled: compiled.canvas, activity, inline });
      }
      const repeats = await repeatChains<ChainSide>(REPEATS, CHAIN, async (n) => {
        const c = canvases.get(n)!;
        const t = performance.now();
        await runInProcess(c.compiled, { runId: 'local', messageId: 'm', query: 'q' }, exec);
        const inProcess = performance.now() - t;
        return {
          floorActivity: await timeFloor(floor.client, floor, 'floorChain', [n, 'activity']),
          floorModel: await timeFloor(floor.client, floor, 'floorChain', [n, 'model']),
          floorLocal: await timeFloor(floor.client, floor, 'floorChain', [n, 'local+activity']),
          ours: await timeRun(c.activity),
          oursNoSnapshots: await timeRun(c.activity, noSnapshots),
          oursInline: await timeRun(c.inline),
          floorEmpty: n === CHAIN[0] ? await timeFloor(floor.client, floor, 'floorEmpty') : 0,
          floorDurable: n === CHAIN[0] ? await timeFloor(floor.client, floor, 'floorDurableEnd') : 0,
          inProcess,
        };
      });
      for (const n of CHAIN) {
        const activityCanvas = canvases.get(n)!.activity;
        if (n === CHAIN[CHAIN.length - 1]) {
          for (let r = 0; r < PHASE_RUNS; r++) {
            for (const [shape, side] of [
              ['activity', 'floor'],
              ['model', 'floorModel'],
            ] as const) {
              const floorRun = await floor.client.workflow.start('floorChain', {
                taskQueue: floor.taskQueue,
                workflowId: `floor-phases-${shape}-${n}-${r}`,
                args: [n, shape],
              });
              await floorRun.result();
              phases[side].push(await phaseMedians(floorRun));
            }
            const ours = await startBenchRun(deps, activityCanvas);
            await ours.result();
            phases.ours.push(await phaseMedians(ours));
          }
        }
        // Round trips of one run of this chain (store statements counted around it alone).
        meter.reset();
        const handle = await startBenchRun(deps, activityCanvas);
        await handle.result();
        const statements = [...meter.byLabel].map(([label, s]) => ({ write: /^(INSERT|UPDATE|WITH|DELETE)|pg_notify/.test(label), count: s.count }));
        counts.push(
          Object.entries({
            ...(await historyCounts(handle)),
            'store writes': statements.filter((s) => s.write).reduce((a, s) => a + s.count, 0),
            'store reads': statements.filter((s) => !s.write).reduce((a, s) => a + s.count, 0),
          }).map(([k, v]) => `${n}|${k}|${v}`),
        );
      }
      for (let r = 0; r < REPEATS; r++) {
        for (const [workflow, side] of [
          ['floorEmpty', 'floorEmpty'],
          ['floorDurableEnd', 'floorDurable'],
        ] as const)
          spans[side].push(
            await spansOf(() => floor.client.workflow.start(workflow, { taskQueue: floor.taskQueue, workflowId: `floor-spans-${workflow}-${r}` })),
          );
        spans.ours.push(await spansOf(() => startBenchRun(deps, canvases.get(CHAIN[0]!)!.inline)));
      }
      const per = (side: ChainSide) => medianSlope(repeats, side);
      const [perFloor, perFloorModel, perFloorLocal, perOurs] = [per('floorActivity'), per('floorModel'), per('floorLocal'), per('ours')];
      const paired = (floorSide: ChainSide, n?: number) => `${pairedRatio(repeats, n === undefined ? 'ours' : 'oursInline', floorSide, n).toFixed(2)}×`;
      // The target is against one activity; the model-call activity is the least a model node can do.
      figures.push([
        'per activity node, ms (vs one activity; one activity streaming the model; local activity + activity)',
        `${ms(perFloor)}; ${ms(perFloorModel)}; ${ms(perFloorLocal)}`,
        ms(perOurs),
        `${ratio(perOurs, perFloor)}; ${ratio(perOurs, perFloorModel)}; ${ratio(perOurs, perFloorLocal)}`,
        `${paired('floorActivity')}; ${paired('floorModel')}; ${paired('floorLocal')}`,
      ]);
      const pairedModel = pairedRatio(repeats, 'ours', 'floorModel');
      targets.push({
        name: 'per model node, ms (one activity streaming the model)',
        kind: 'at most',
        bound: 1.15,
        floor: perFloorModel,
        ours: perOurs,
        paired: pairedModel,
      });
      figures.push(['per inline node, ms', '0', ms(per('oursInline')), '—', '']);
      snapshotRows.push(...snapshotCostRows(perOurs, per('oursNoSnapshots'), pairedRatio(repeats, 'ours', 'oursNoSnapshots')));
      figures.push(['  (same activity node run by the in-process engine, ms)', '', ms(per('inProcess')), '', '']);

      // Fixed cost of a run: an empty workflow (the target's floor), and one whose end is a local
      // activity, against a run of Begin → one inline node.
      const shortest = CHAIN[0]!;
      const fixed = {
        ours: medianAt(repeats, shortest, 'oursInline'),
        floor: medianAt(repeats, shortest, 'floorEmpty'),
        durable: medianAt(repeats, shortest, 'floorDurable'),
      };
      figures.push([
        `fixed cost per run, ms (empty workflow; one local activity; Begin → one inline node, start → result)`,
        `${ms(fixed.floor)}; ${ms(fixed.durable)}`,
        ms(fixed.ours),
        `${ratio(fixed.ours, fixed.floor)}; ${ratio(fixed.ours, fixed.durable)}`,
        `${paired('floorEmpty', shortest)}; ${paired('floorDurable', shortest)}`,
      ]);

      targets.push({
        name: 'fixed cost per run, ms (the empty run that records its end)',
        kind: 'at most',
        bound: 1.3,
        floor: fixed.durable,
        ours: fixed.ours,
        paired: pairedRatio(repeats, 'oursInline', 'floorDurable', shortest),
      });

      // Time to first token: the floor's start → activity running (and, for the same-work floor,
      // the API's own statements before the start) against API request → first `message` event,
      // less the raw model stream's own time to first token (bench/ttft.ts).
      await store.tenants.addApiKey('bench', 'bench-key');
      const app = await buildApp({ store, temporal: client, taskQueue: bench.taskQueue, runSettings: DEFAULT_RUN_SETTINGS, log: silentLogger });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const agent = await store.canvases.create({ tenantId: 'bench', title: 'ttft', dsl: streamCanvas('answer') });
      const tokenAgent = await store.canvases.create({ tenantId: 'bench', title: 'token path', dsl: streamCanvas('tokenpath') });
      const ttftRepeats = await measureTtft(REPEATS, {
        base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
        agentId: agent.id,
        tokenAgentId: tokenAgent.id,
        modelUrl: llm.url,
        meter,
        client,
        floor,
        modelFirstToken: () => modelFirstToken,
      });
      const ttft = (k: keyof TtftSample) => ttftMedian(ttftRepeats, k);
      const added = ttft('api') - ttft('raw');
      figures.push([
        'added time to first token, ms (start → activity running; request → first message − raw model)',
        ms(ttft('floor')),
        ms(added),
        ratio(added, ttft('floor')),
        `${median(ttftRepeats.map((x) => (x.api - x.raw) / x.floor)).toFixed(2)}×`,
      ]);
      targets.push({
        name: `added time to first token, ms (start → activity running + the API's ${ttft('apiStatementCount')} statements before its start, ${ms(ttft('apiStatements'))} ms)`,
        kind: 'at most',
        bound: 1.3,
        floor: median(ttftRepeats.map((x) => x.floor + x.apiStatements)),
        ours: added,
        paired: median(ttftRepeats.map((x) => (x.api - x.raw) / (x.floor + x.apiStatements))),
      });
      figures.push(['model first token → client first token, ms', '—', ms(ttft('tokenPath')), '—', '']);

      // Throughput: LANES clients, each starting its next run when its last one ended. One batch
      // swings by ±20% from load elsewhere, so the floor's and ours alternate over a few rounds
      // and the medians are compared (with the range of each round's own ratio).
      const small = await store.canvases.create({ tenantId: 'bench', title: 'throughput', dsl: streamCanvas('answer') });
      const rps = { floor: [] as number[], ours: [] as number[], ratios: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const f = await runsPerSecond(LANES, RUNS, () => timeFloor(floor.client, floor, 'floorChain', [1, 'activity']));
        const o = await runsPerSecond(LANES, RUNS, () => timeRun(small));
        rps.floor.push(f);
        rps.ours.push(o);
        rps.ratios.push(o / f);
      }
      const [floorRps, oursRps] = [median(rps.floor), median(rps.ours)];
      figures.push([
        `runs/s, one worker, ${LANES} concurrent clients, median of ${ROUNDS} rounds (one activity; Begin → LLM → Message)`,
        floorRps.toFixed(1),
        oursRps.toFixed(1),
        ratio(oursRps, floorRps),
        `${median(rps.ratios).toFixed(2)}× (${Math.min(...rps.ratios).toFixed(2)}–${Math.max(...rps.ratios).toFixed(2)})`,
      ]);
      targets.push({ name: 'runs/s (one activity)', kind: 'at least', bound: 1, floor: floorRps, ours: oursRps, paired: median(rps.ratios) });
      await app.close();
    }),
  );
  load.push(os.loadavg()[0]!);
  const title = `agent-canvas beside bare Temporal on the same dev server (${REPEATS} repeats, medians; chains of ${CHAIN.join(', ')} nodes; zero-latency scripted model; ${os.cpus().length} cores, load ${load.map((l) => l.toFixed(1)).join(' → ')})`;
  table(title, ['metric', 'floor', 'agent-canvas', 'ratio', 'paired: median of per-repeat ratios'], figures);
  printSnapshotCost(CHAIN, REPEATS, snapshotRows);
  table(`targets against same-work floors (judged on the paired ratio; load ${load.map((l) => l.toFixed(1)).join(' → ')})`, TARGET_HEADER, targetRows(targets));
  // Round trips per run (the shortest chain: Begin → one LLM node) and per further LLM node.
  const byChain = new Map(counts.map((c) => [Number(c[0]!.split('|')[0]), new Map(c.map((x) => [x.split('|')[1]!, Number(x.split('|')[2])]))]));
  const [first, last] = [CHAIN[0]!, CHAIN[CHAIN.length - 1]!];
  const rows = [...byChain.get(first)!.keys()].map((k) => {
    const a = byChain.get(first)!.get(k)!;
    const b = byChain.get(last)!.get(k)!;
    return [k, String(a), last > first ? ((b - a) / (last - first)).toFixed(1) : '—'];
  });
  table('round trips of one run', ['', `run of Begin → ${first} LLM node(s)`, 'per further LLM node'], rows);
  table(
    `where a node's time goes, ms (server's history times, chain of ${last}, medians of ${PHASE_RUNS} runs each)`,
    ['', 'floor: one activity', 'one activity streaming the model', 'agent-canvas'],
    medianRows(PHASE_NAMES, phases, ['floor', 'floorModel', 'ours']),
  );
  table(
    `where a run's fixed cost goes, ms (start call → result, split by the server's history times; medians of ${REPEATS} runs each)`,
    ['', 'floor: empty workflow', 'one local activity', 'agent-canvas: Begin → one inline node'],
    medianRows(RUN_SPAN_NAMES, spans, ['floorEmpty', 'floorDurable', 'ours']),
  );
  await floor.close();
  await bench.close();
}

runBench(main);
