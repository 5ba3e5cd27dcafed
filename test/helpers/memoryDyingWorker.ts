/**
 * A worker process that dies right after a Message's memory save: it runs the real workflows and
 * activities, and SIGKILLs itself once `memorySave` has stored the turn, before Temporal hears the
 * activity completed. Each save it makes is first logged (one line) to SAVE_LOG. Run by
 * test/memory/memoryCrash.test.ts as
 *   node --import tsx test/helpers/memoryDyingWorker.ts
 * with DATABASE_URL, TEMPORAL_ADDRESS, TASK_QUEUE, WORKFLOW_BUNDLE, LLM_BASE_URL, SAVE_LOG.
 */
import { appendFileSync } from 'node:fs';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { LlmCallOptions } from '../../activities/llm';
import type { MemorySaveRequest } from '../../src/core/components/callContracts';
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
  const store = await openStore({ databaseUrl: required('DATABASE_URL') });
  const activities = createActivities({ store, llm: llmSettingsFromEnv({ LLM_BASE_URL: required('LLM_BASE_URL'), LLM_API_KEY: 'test' }), log: silentLogger });
  const connection = await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    taskQueue: required('TASK_QUEUE'),
    workflowBundle: { codePath: required('WORKFLOW_BUNDLE') },
    activities: {
      ...activities,
      async memorySave(request: MemorySaveRequest, options: LlmCallOptions) {
        appendFileSync(required('SAVE_LOG'), 'save\n');
        await activities.memorySave(request, options);
        process.kill(process.pid, 'SIGKILL');
      },
    },
  });
  process.stdout.write('dying worker polling\n');
  await worker.run();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
