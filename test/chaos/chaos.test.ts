/**
 * `npm run chaos` in small: 6 runs (3 tool-using agents, 3 paused at a form) on 2 workers and 2 API
 * processes, 2 processes SIGKILLed at random moments and restarted. The targets are the full
 * run's: every run finished, no finished model round served twice, every SSE stream (resumed
 * across the kills) without a gap or a duplicate, and every form answered through the API.
 */
import { describe, expect, inject, it } from 'vitest';
import { chaosTable, targetsHold } from '../../scripts/chaos';
import { runChaos } from '../../scripts/chaos/run';
import { startPostgres } from '../helpers/postgres';

// Only to learn whether PostgreSQL's binaries are here; the chaos run starts its own.
const probe = await startPostgres();
if (!('skipped' in probe)) await probe.stop();
if ('skipped' in probe) console.warn(`[chaos] skipped: the chaos run needs PostgreSQL: ${probe.skipped}`);

describe.skipIf('skipped' in probe)('a small chaos run', () => {
  it('finishes every run with no repeated finished round, no stream gap and no duplicate, through 2 kills', async () => {
    const seed = Math.floor(Math.random() * 1e6);
    const report = await runChaos({
      runs: 6,
      kills: 2,
      timeCapS: 900,
      workers: 2,
      apis: 2,
      seed,
      temporalAddress: inject('temporalAddress'),
      say: (line) => console.log(`[chaos] ${line}`),
    });
    console.log(`[chaos] report\n${chaosTable(report)}`);
    expect(report.kills.worker + report.kills.api).toBe(2);
    expect(report.runs).toEqual({ started: 6, finished: 6, failed: 0, unfinished: 0 });
    expect(report.modelCalls.repeatedFinishedRounds).toBe(0);
    expect(report.streams).toMatchObject({ followed: 6, withGaps: 0, withDuplicates: 0, gaps: 0, duplicates: 0 });
    expect(report.formsAnswered).toBe(3);
    // A crash-free run makes one call per round: 2 for the agent, 1 for the form's summary.
    expect([report.modelCalls.baselineAgent, report.modelCalls.baselineApproval]).toEqual([2, 1]);
    expect(targetsHold(report)).toBe(true);
  }, 1_500_000);
});
