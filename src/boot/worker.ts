/** The Temporal worker: the run workflow plus the activities, with heartbeats frequent enough for prompt cancels. */
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';

/**
 * The SDK logs through its own runtime logger; keep it at warnings (the bundler's build report
 * is noise on every start) unless debugging.
 */
export function quietTemporalRuntime(level: LogLevel = 'WARN'): void {
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // A runtime exists already (tests install their own).
  }
}

export async function createWorker(opts: { address: string; namespace: string; taskQueue: string; projectRoot: string; activities: ActivityDeps }): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowsPath: path.join(opts.projectRoot, 'workflows/index.ts'),
    activities: createActivities(opts.activities),
    // A cancel reaches a running activity on its next heartbeat: keep them about a second apart.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
  return { worker, connection };
}
