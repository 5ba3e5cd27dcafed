/**
 * A worker process that dies in the middle of a workflow task: it runs the real workflows and
 * activities, and SIGKILLs itself right after a run-bookkeeping write (a step's events, a run's
 * end) whose events contain `DIE_AFTER_TEXT` has been stored — so that write is in the store
 * while the workflow task that made it never completes. Run by test/durability tests as
 *   node --import tsx test/helpers/dyingWorker.ts
 * with DATABASE_URL, TEMPORAL_ADDRESS, TASK_QUEUE, WORKFLOW_BUNDLE, LLM_BASE_URL, DIE_AFTER_TEXT.
 */
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { ledgerSinks } from '../../activities/reuseSink';
import type { AppendRunEventsInput, FinalizeRunInput } from '../../activities/runs';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { openStore } from '../../src/io/store/store';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dieAfter = required('DIE_AFTER_TEXT');
  const store = await openStore({ databaseUrl: required('DATABASE_URL') });
  const activities = createActivities({
    store,
    llm: llmSettingsFromEnv({ LLM_BASE_URL: required('LLM_BASE_URL'), LLM_API_KEY: 'test' }),
    log: silentLogger,
  });
  const dies = (events: unknown) => JSON.stringify(events).includes(dieAfter);
  const connection = await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    taskQueue: required('TASK_QUEUE'),
    workflowBundle: { codePath: required('WORKFLOW_BUNDLE') },
    sinks: ledgerSinks(store, silentLogger),
    activities: {
      ...activities,
      async appendRunEvents(input: AppendRunEventsInput) {
        await activities.appendRunEvents(input);
        if (dies(input.events)) process.kill(process.pid, 'SIGKILL');
      },
      async finalizeRun(input: FinalizeRunInput) {
        await activities.finalizeRun(input);
        if (dies(input.events)) process.kill(process.pid, 'SIGKILL');
      },
    },
  });
  process.stdout.write('dying worker polling\n');
  await worker.run();
}

main().catch((err: unknown) => {
  process.stderr.write(`dying worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
