/**
 * The crash-point harness's bounded subset (scripts/crashpoints/matrix.ts, TEST_SUBSET): each
 * case stops a process at one point of a reference run and restarts it, and the run must come
 * out as its uninterrupted run did. `npm run crashpoints` takes the whole matrix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip';
import { TEST_SUBSET } from '../../scripts/crashpoints/matrix';
import { matrixTable, runCrashpoints, type CrashpointReport } from '../../scripts/crashpoints/run';
import { startPostgres } from '../helpers/postgres';

let report: CrashpointReport | null = null;
let skipped: string | null = null;

beforeAll(async () => {
  // The harness's API and worker are two processes: they share a PostgreSQL.
  const pg = await startPostgres();
  if ('skipped' in pg) {
    skipped = pg.skipped;
    return;
  }
  await pg.stop();
  report = await runCrashpoints({ selection: { points: [], stops: null, cases: TEST_SUBSET }, say: () => undefined });
  process.stdout.write(`crash-point subset\n${matrixTable(report)}\n`);
}, 600_000);

afterAll(() => {
  if (skipped) process.stdout.write(`crash-point subset skipped: ${skipped}\n`);
});

describe('a run stopped at a crash point and restarted', () => {
  it.for(TEST_SUBSET)('$id under $stop ends as the uninterrupted run did', ({ id, stop }, ctx) => {
    if (skipped) skipBecause(ctx, skipped);
    const reference = id.split(':')[0]!;
    expect(report!.baselines[reference]?.problems ?? ['no uninterrupted run']).toEqual([]);
    const row = report!.rows.find((r) => r.id === id && r.stop === stop);
    expect(row, `${id} under ${stop} did not run`).toBeDefined();
    expect(row!.problems, `npm run crashpoints -- --point ${id} --stop ${stop}`).toEqual([]);
  });
});
