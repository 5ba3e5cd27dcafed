/**
 * `npm run chaos`: a bounded chaos run on this machine, loopback only. It starts a scaled-out
 * cluster (2 workers, 2 API processes, PostgreSQL, a Temporal dev server or TEMPORAL_ADDRESS,
 * the scripted model), starts N runs of a tool-using agent and of a run paused at a form,
 * SIGKILLs workers and API processes M times at random moments (each restarted at once), answers
 * the forms, follows every run over SSE with resumes, and prints what came through.
 *
 *   npm run chaos -- --runs 50 --kills 10 --time-cap 900 --seed 7
 *
 * Exit code 0 when the targets hold: every run finished, no finished round paid twice, no stream
 * with a gap or a duplicate.
 */
import { parseArgs } from 'node:util';
import { runChaos, type ChaosReport } from './chaos/run';

const USAGE = 'usage: npm run chaos -- [--runs N (50)] [--kills M (10)] [--time-cap SECONDS (900)] [--workers 2] [--apis 2] [--seed S]';

function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`--${name} must be an integer ≥ ${min}, got "${raw}"\n${USAGE}\n`);
    process.exit(2);
  }
  return n;
}

/** The report as the table the closing note quotes. */
export function chaosTable(r: ChaosReport): string {
  const rows: Array<[string, string]> = [
    ['runs started / finished / failed / unfinished', `${r.runs.started} / ${r.runs.finished} / ${r.runs.failed} / ${r.runs.unfinished}`],
    ['kills (SIGKILL, restarted)', `${r.kills.worker + r.kills.api}: ${r.kills.worker} worker, ${r.kills.api} API`],
    ['model calls per agent run (baseline)', `${r.modelCalls.agentPerRun.toFixed(2)} (${r.modelCalls.baselineAgent})`],
    ['model calls per paused run (baseline)', `${r.modelCalls.approvalPerRun.toFixed(2)} (${r.modelCalls.baselineApproval})`],
    ['repeated finished rounds', String(r.modelCalls.repeatedFinishedRounds)],
    ['calls repeated after a kill mid-call', String(r.modelCalls.inFlightAtKill)],
    ['forms answered through the API', String(r.formsAnswered)],
    ['SSE streams / resumes', `${r.streams.followed} / ${r.streams.resumes}`],
    [
      'streams with gaps / duplicates',
      `${r.streams.withGaps} / ${r.streams.withDuplicates} (${r.streams.gaps} events missed, ${r.streams.duplicates} sent twice)`,
    ],
    ['wall time', `${(r.wallMs / 1000).toFixed(1)} s (seed ${r.seed})`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

export function targetsHold(r: ChaosReport): boolean {
  return r.runs.finished === r.runs.started && r.modelCalls.repeatedFinishedRounds === 0 && r.streams.withGaps === 0 && r.streams.withDuplicates === 0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      kills: { type: 'string' },
      'time-cap': { type: 'string' },
      workers: { type: 'string' },
      apis: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const report = await runChaos({
    runs: positiveInt('runs', values.runs, 50),
    kills: positiveInt('kills', values.kills, 10, 0),
    timeCapS: positiveInt('time-cap', values['time-cap'], 900),
    workers: positiveInt('workers', values.workers, 2),
    apis: positiveInt('apis', values.apis, 2),
    seed: positiveInt('seed', values.seed, Math.floor(Math.random() * 1e9), 0),
    say,
  });
  process.stdout.write(`\nchaos run\n${chaosTable(report)}\n`);
  const ok = targetsHold(report);
  process.stdout.write(ok ? '\ntargets hold: all runs finished, 0 repeated finished rounds, 0 gaps, 0 duplicates\n' : '\ntargets MISSED\n');
  process.exit(ok ? 0 : 1);
}

// Run as a script (tsx scripts/chaos.ts), not when the test imports the table.
if (process.argv[1]?.endsWith('chaos.ts')) {
  main().catch((err: unknown) => {
    process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
