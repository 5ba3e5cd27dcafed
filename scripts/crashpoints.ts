/**
 * `npm run crashpoints`: the crash-point matrix. Reference runs (an LLM chain, an Agent with two
 * tool rounds, a UserFillUp pause answered, an Iteration, a sub-agent, a chain that continues as
 * new, a document parsed by an ingestion pipeline) are run once uninterrupted,
 * then once per point where a process can die (scripts/crashpoints/matrix.ts) and per stop kind:
 * the worker SIGKILLed, the worker stopped gracefully past its grace, the API SIGKILLed; each
 * restarted at once. Every case must end with the uninterrupted run's answer, repeat no finished
 * model or tool call, store and replay no cut-off output, replay what it streamed live, and
 * release its session. Loopback only: a Temporal dev server (or TEMPORAL_ADDRESS), PostgreSQL,
 * the scripted model.
 *
 *   npm run crashpoints                                              the whole matrix
 *   npm run crashpoints -- --point llm-chain:llmChat#2:mid-stream --stop sigkill
 *   npm run crashpoints -- --trace llm-chain                         the points a reference passes
 *
 * Exit code 0 when every case passed.
 */
import { parseArgs } from 'node:util';
import { STOP_KINDS, type StopKind } from './crashpoints/runCase';
import { matrixTable, runCrashpoints } from './crashpoints/run';

const USAGE = `usage: npm run crashpoints -- [--point <reference>:<point>]... [--stop ${STOP_KINDS.join('|')}]... [--trace <reference>]...`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      point: { type: 'string', multiple: true },
      stop: { type: 'string', multiple: true },
      trace: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const stops = (values.stop ?? null) as StopKind[] | null;
  const unknown = stops?.find((s) => !STOP_KINDS.includes(s));
  if (unknown) {
    process.stderr.write(`--stop must be one of ${STOP_KINDS.join(', ')}, got "${unknown}"\n${USAGE}\n`);
    process.exit(2);
  }
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const traceOnly = values.trace ?? [];
  const started = Date.now();
  const report = await runCrashpoints({ selection: { points: values.point ?? [], stops: traceOnly.length > 0 && !values.point ? [] : stops }, traceOnly, say });
  for (const [ref, b] of Object.entries(report.baselines)) {
    if (traceOnly.includes(ref))
      process.stdout.write(`\n${ref}: the points its uninterrupted run passes\n${b.traced.map((p) => `  ${ref}:${p}`).join('\n')}\n`);
  }
  if (report.rows.length > 0) process.stdout.write(`\ncrash-point matrix (${((Date.now() - started) / 1000).toFixed(0)} s)\n${matrixTable(report)}\n`);
  const failed = report.rows.filter((r) => r.problems.length > 0).length + Object.values(report.baselines).filter((b) => b.problems.length > 0).length;
  process.stdout.write(failed === 0 ? '\nall cases passed\n' : `\n${failed} case(s) FAILED\n`);
  process.exit(failed === 0 ? 0 : 1);
}

// Run as a script (tsx scripts/crashpoints.ts), not when a test imports its modules.
if (process.argv[1]?.endsWith('crashpoints.ts')) {
  main().catch((err: unknown) => {
    process.stderr.write(`crashpoints failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
