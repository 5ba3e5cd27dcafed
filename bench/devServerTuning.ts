/**
 * Dev-server settings, one at a time (`npm run bench -- devserver`): the bare floor harness
 * (bench/floor/harness.ts) on a fresh `temporal server start-dev` per setting, so each row says
 * what that setting alone is worth. BENCH_TUNING=name,name picks variants; the product's choice is
 * DEV_SERVER_TUNING (src/io/temporal/devServer.ts). Prints a table; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { obtainTemporalCli } from '../src/io/temporal/cli';
import { DEV_SERVER_FILE_TUNING, DEV_SERVER_TUNING, startDevServer } from '../src/io/temporal/devServer';
import { root, runBench } from './common';
import { createFloorWorker, measureFloors, type FloorFigures } from './floor/harness';

const dyn = (kv: string) => ['--dynamic-config-value', kv];
const EAGER = dyn('system.enableActivityEagerExecution=true');
const FAST_TRANSFER = dyn('history.transferProcessorMaxPollRPS=1000');
const WAL = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

interface Variant {
  name: string;
  args: readonly string[];
  /** Persist to a SQLite file (what `npm start` does). */
  file?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'cli-defaults', args: [] },
  { name: 'eager-activities', args: EAGER },
  { name: 'eager+transfer-rps', args: [...EAGER, ...FAST_TRANSFER] },
  { name: 'eager+transfer-rps+timer-rps', args: [...EAGER, ...FAST_TRANSFER, ...dyn('history.timerProcessorMaxPollRPS=1000')] },
  {
    name: 'eager+transfer-rps+1-partition',
    args: [...EAGER, ...FAST_TRANSFER, ...dyn('matching.numTaskqueueReadPartitions=1'), ...dyn('matching.numTaskqueueWritePartitions=1')],
  },
  { name: 'eager+transfer-rps+1-write-partition', args: [...EAGER, ...FAST_TRANSFER, ...dyn('matching.numTaskqueueWritePartitions=1')] },
  { name: 'eager+transfer-rps+visibility-rps', args: [...EAGER, ...FAST_TRANSFER, ...dyn('history.visibilityProcessorMaxPollRPS=1000')] },
  { name: 'product (DEV_SERVER_TUNING)', args: DEV_SERVER_TUNING },
  { name: 'file: eager', args: EAGER, file: true },
  { name: 'file: eager+transfer-rps', args: [...EAGER, ...FAST_TRANSFER], file: true },
  { name: 'file: eager+transfer-rps+WAL', args: [...EAGER, ...FAST_TRANSFER, ...WAL], file: true },
  { name: 'file: product (DEV_SERVER_TUNING + DEV_SERVER_FILE_TUNING)', args: [...DEV_SERVER_TUNING, ...DEV_SERVER_FILE_TUNING], file: true },
];

async function main(): Promise<void> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already
  }
  const cli = await obtainTemporalCli({ projectRoot: root });
  if (!cli) throw new Error('no Temporal CLI');
  const wanted = process.env.BENCH_TUNING?.split(',').map((s) => s.trim());
  const variants = VARIANTS.filter((x) => !wanted || wanted.includes(x.name));
  const opts = { repeats: Number(process.env.BENCH_REPEATS ?? 10), chain: [1, 11], lanes: 20, runs: Number(process.env.BENCH_RUNS ?? 100) };
  const load = [os.loadavg()[0]!];
  // Every variant's server and floor worker at once, measured round-robin (measureFloors).
  const started = await Promise.all(
    variants.map(async (v) => {
      const dir = v.file ? mkdtempSync(path.join(os.tmpdir(), 'floor-')) : null;
      const server = await startDevServer({ cliPath: cli.path, tuning: v.args, ...(dir ? { dbFile: path.join(dir, 'temporal.db') } : {}) });
      const floor = await createFloorWorker(server.address);
      return { dir, server, client: floor.client, floor };
    }),
  );
  let figures: FloorFigures[] = [];
  const run = started.reduce<() => Promise<void>>(
    (inner, t) => () => t.floor.worker.runUntil(inner),
    async () => {
      figures = await measureFloors(started, opts);
    },
  );
  await run();
  for (const t of started) {
    await t.floor.close();
    await t.server.stop();
    if (t.dir) rmSync(t.dir, { recursive: true, force: true });
  }
  load.push(os.loadavg()[0]!);
  const header = ['dev server', 'ms/activity', 'ms/(local+activity)', 'empty run ms', 'start→activity ms', 'runs/s (20 clients)'];
  const lines = variants.map((v, i) => {
    const f = figures[i]!;
    return [v.name, ms(f.perActivity), ms(f.perLocalAndActivity), ms(f.emptyRun), ms(f.startToActivity), f.runsPerSecond.toFixed(1)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  process.stdout.write(
    `\nTemporal dev server settings, bare floor harness (${opts.repeats} repeats round-robin, medians; ${os.cpus().length} cores, load ${load.map((l) => l.toFixed(1)).join(' → ')})\n`,
  );
  for (const l of [header, ...lines]) process.stdout.write(`  ${l.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}\n`);
}

const ms = (x: number) => x.toFixed(1);

runBench(main);
