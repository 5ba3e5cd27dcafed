/**
 * `npm run hostile`: the hostile run's stalled-attempt scenarios (issue 38), loopback only, each
 * printing how many streams came through exact (live SSE text with resumes = a later replay of the
 * run's events = the run's stored result = the model's answer) and how many model calls were made
 * again.
 *
 *   npm run hostile -- --scenario partition   # worker 1 cut off from Temporal 40 s, 4 runs
 *   npm run hostile -- --scenario freeze      # worker 1 SIGSTOPped 20 s (heartbeat timeout 5 s), 12 runs
 *   npm run hostile -- --scenario outage      # Temporal and PostgreSQL both down 30 s, 4 runs
 *   npm run hostile -- --scenario all
 *
 * Exit code 0 when every run of every scenario was exact and no finished model call was made again.
 */
import { parseArgs } from 'node:util';
import { answerOf, runScenario, SCENARIOS, type ScenarioName, type ScenarioOptions } from './hostile/scenarios';
import { reportTable } from './hostile/verdict';

const USAGE = 'usage: npm run hostile -- --scenario partition|freeze|outage|all [--runs N] [--fault-s S] [--heartbeat-ms MS] [--words W] [--token-delay-ms MS]';

/** The figures: runs, fault length, and a heartbeat timeout short enough for the fault to force retries. */
const DEFAULTS: Record<ScenarioName, Omit<ScenarioOptions, 'scenario' | 'say'>> = {
  partition: { runs: 4, faultS: 40, heartbeatTimeoutMs: 10_000, words: 300, tokenDelayMs: 200 },
  freeze: { runs: 12, faultS: 20, heartbeatTimeoutMs: 5_000, words: 250, tokenDelayMs: 200 },
  outage: { runs: 4, faultS: 30, heartbeatTimeoutMs: 10_000, words: 150, tokenDelayMs: 200 },
};

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be an integer ≥ 1, got "${raw}"\n${USAGE}\n`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string' },
      runs: { type: 'string' },
      'fault-s': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      words: { type: 'string' },
      'token-delay-ms': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.scenario) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const names = values.scenario === 'all' ? [...SCENARIOS] : [values.scenario as ScenarioName];
  if (!names.every((n) => SCENARIOS.includes(n))) {
    process.stderr.write(`--scenario must be one of ${SCENARIOS.join(', ')} or all, got "${values.scenario}"\n`);
    process.exit(2);
  }
  let ok = true;
  for (const scenario of names) {
    const d = DEFAULTS[scenario];
    const opts: ScenarioOptions = {
      scenario,
      runs: positiveInt('runs', values.runs) ?? d.runs,
      faultS: positiveInt('fault-s', values['fault-s']) ?? d.faultS,
      heartbeatTimeoutMs: positiveInt('heartbeat-ms', values['heartbeat-ms']) ?? d.heartbeatTimeoutMs,
      words: positiveInt('words', values.words) ?? d.words,
      tokenDelayMs: positiveInt('token-delay-ms', values['token-delay-ms']) ?? d.tokenDelayMs,
      say: (line) => process.stderr.write(`${line}\n`),
    };
    const report = await runScenario(opts);
    process.stdout.write(`\n${scenario}\n${reportTable(report, answerOf(opts.words))}\n`);
    const exact = report.verdicts.every((v) => v.exact);
    const repeated = report.verdicts.reduce((n, v) => n + v.rounds.repeatedFinished, 0);
    ok &&= exact && repeated === 0;
  }
  process.stdout.write(ok ? '\nall exact, no finished model call made again\n' : '\nTARGETS MISSED\n');
  process.exit(ok ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`hostile failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
