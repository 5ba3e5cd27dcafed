/**
 * The floor: what bare Temporal costs on the same dev server, measured by the same clock in the
 * same process as agent-canvas (bench/orchestration.ts prints both and their ratios;
 * bench/devServerTuning.ts measures it under each dev-server setting). The worker has the
 * product's worker options but its own bundle (bench/floor/workflows.ts) and no-op activities (one
 * shape streams from the scripted model instead, bench/floor/activities.ts).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../../server/boot/worker';
import { EAGER_START, root } from '../common';
import { createFloorActivities } from './activities';
import type { FloorShape } from './workflows';

export interface FloorWorker {
  worker: Worker;
  /** The client to start floor runs with: the worker's NativeConnection (eager starts) with BENCH_EAGER_START=1, else its own. */
  client: Client;
  taskQueue: string;
  /** When each workflow's first activity began (performance.now()), by workflow id. */
  began: Map<string, number>;
  close(): Promise<void>;
}

/** `modelUrl`: the OpenAI-compatible endpoint the 'model' shape's activities stream from. */
export async function createFloorWorker(address: string, opts: { taskQueue?: string; modelUrl?: string } = {}): Promise<FloorWorker> {
  const taskQueue = opts.taskQueue ?? 'floor';
  const began = new Map<string, number>();
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    ...WORKER_TUNING,
    connection,
    taskQueue,
    workflowsPath: path.join(root, 'bench/floor/workflows.ts'),
    activities: createFloorActivities({
      began: (id) => {
        if (!began.has(id)) began.set(id, performance.now());
      },
      ...(opts.modelUrl ? { modelUrl: opts.modelUrl } : {}),
    }),
    maxCachedWorkflows: 1000,
  });
  const own = EAGER_START ? null : await Connection.connect({ address });
  return {
    worker,
    client: new Client({ connection: own ?? connection }),
    taskQueue,
    began,
    close: async () => {
      await own?.close();
      await connection.close();
    },
  };
}

/** Eager starts when the client is the floor worker's own (BENCH_EAGER_START=1 gives agent-canvas's the same). */
const eager = (client: Client, floor: FloorWorker) => EAGER_START && client === floor.client;

/** One run of a floor workflow, start → result, ms. */
export async function timeFloor(
  client: Client,
  floor: FloorWorker,
  workflow: 'floorEmpty' | 'floorDurableEnd' | 'floorChain',
  args: unknown[] = [],
): Promise<number> {
  const t = performance.now();
  await client.workflow.execute(workflow, { taskQueue: floor.taskQueue, workflowId: `floor-${randomUUID()}`, args, requestEagerStart: eager(client, floor) });
  return performance.now() - t;
}

/** Start → the first activity running, ms (the floor of the time a run adds before its model call). */
export async function floorStartToActivity(client: Client, floor: FloorWorker): Promise<number> {
  const workflowId = `floor-${randomUUID()}`;
  const t = performance.now();
  const handle = await client.workflow.start('floorChain', {
    taskQueue: floor.taskQueue,
    workflowId,
    args: [1, 'activity' satisfies FloorShape],
    requestEagerStart: eager(client, floor),
  });
  await handle.result();
  const began = floor.began.get(workflowId);
  floor.began.delete(workflowId);
  if (began === undefined) throw new Error('the floor activity never said it began');
  return began - t;
}

/** Runs `total` runs with `lanes` clients each starting its next run when its last one finished; runs/s. */
export async function runsPerSecond(lanes: number, total: number, runOne: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next++ < total) await runOne();
    }),
  );
  return total / ((performance.now() - t) / 1000);
}

/** Least-squares slope of y over x (ms per node from chains of several lengths). */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

export interface FloorFigures {
  perActivity: number;
  perLocalAndActivity: number;
  emptyRun: number;
  startToActivity: number;
  runsPerSecond: number;
}

export interface FloorTarget {
  client: Client;
  floor: FloorWorker;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Every floor figure for each target (one per dev server), round-robin within each repeat so
 * that load from elsewhere falls on all targets alike (the dev-server tuning bench).
 */
export async function measureFloors(targets: FloorTarget[], opts: { repeats: number; chain: number[]; lanes: number; runs: number }): Promise<FloorFigures[]> {
  const times = async (f: (t: FloorTarget) => Promise<number>) => {
    const xs = targets.map(() => [] as number[]);
    for (let r = 0; r < opts.repeats + 2; r++) {
      for (const [i, t] of targets.entries()) {
        const x = await f(t);
        if (r >= 2) xs[i]!.push(x);
      }
    }
    return xs.map(median);
  };
  const perNode = async (shape: FloorShape) => {
    const points = targets.map(() => [] as Array<[number, number]>);
    for (const n of opts.chain) (await times((t) => timeFloor(t.client, t.floor, 'floorChain', [n, shape]))).forEach((y, i) => points[i]!.push([n, y]));
    return points.map(slope);
  };
  const perActivity = await perNode('activity');
  const perLocalAndActivity = await perNode('local+activity');
  const emptyRun = await times((t) => timeFloor(t.client, t.floor, 'floorEmpty'));
  const startToActivity = await times((t) => floorStartToActivity(t.client, t.floor));
  // Throughput saturates the machine: one target at a time, in two halves (forward, then backward).
  const rps = targets.map(() => [] as number[]);
  for (const order of [targets.map((_, i) => i), targets.map((_, i) => targets.length - 1 - i)])
    for (const i of order)
      rps[i]!.push(
        await runsPerSecond(opts.lanes, Math.ceil(opts.runs / 2), () => timeFloor(targets[i]!.client, targets[i]!.floor, 'floorChain', [1, 'activity'])),
      );
  return targets.map((_, i) => ({
    perActivity: perActivity[i]!,
    perLocalAndActivity: perLocalAndActivity[i]!,
    emptyRun: emptyRun[i]!,
    startToActivity: startToActivity[i]!,
    runsPerSecond: (rps[i]![0]! + rps[i]![1]!) / 2,
  }));
}
