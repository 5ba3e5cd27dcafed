/**
 * The crash-point harness's bounded subset (scripts/crashpoints/matrix.ts, TEST_SUBSET): each
 * case stops a process at one point of a reference run and restarts it, and the run must come
 * out as its uninterrupted run did. `npm run crashpoints` takes the whole matrix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SUBSET } from '../../scripts/crashpoints/matrix';
import { matrixTable, runCrashpoints, type CrashpointReport } from '../../scripts/crashpoints/run';
import type { StopKind } from '../../scripts/crashpoints/runCase';
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
  const byPoint = new Map<string, StopKind[]>();
  for (const c of TEST_SUBSET) byPoint.set(c.id, [...(byPoint.get(c.id) ?? []), c.stop]);
  // One topology for all cases; each point under the stops the subset names for it.
  const rows: CrashpointReport['rows'] = [];
  const baselines: CrashpointReport['baselines'] = {};
  const stopsSets = [...new Set([...byPoint.values()].map((s) => s.join(',')))];
  for (const set of stopsSets) {
    const points = [...byPoint].filter(([, s]) => s.join(',') === set).map(([id]) => id);
    const part = await runCrashpoints({ selection: { points, stops: set.split(',') as StopKind[] }, say: () => undefined });
    rows.push(...part.rows);
    Object.assign(baselines, part.baselines);
  }
  report = { rows, baselines };
  process.stdout.write(`crash-point subset\n${matrixTable(report)}\n`);
}, 600_000);

afterAll(() => {
  if (skipped) process.stdout.write(`crash-point subset skipped: ${skipped}\n`);
});

describe('a run stopped at a crash point and restarted', () => {
  it.each(TEST_SUBSET)('$id under $stop ends as the uninterrupted run did', ({ id, stop }) => {
    if (skipped) return;
    const reference = id.split(':')[0]!;
    expect(report!.baselines[reference]?.problems ?? ['no uninterrupted run']).toEqual([]);
    const row = report!.rows.find((r) => r.id === id && r.stop === stop);
    expect(row, `${id} under ${stop} did not run`).toBeDefined();
    expect(row!.problems, `npm run crashpoints -- --point ${id} --stop ${stop}`).toEqual([]);
  });
});
