/**
 * Holds an activity's result until the Temporal server answers. During a Temporal outage the
 * worker's SDK retries an activity's completion for a few seconds only, then drops it (measured:
 * streams that ended 8 s into a 30 s outage were all called again, even with a 60 s heartbeat
 * timeout: the server never got their results and timed them out). Waiting here, heartbeating,
 * until the server is back makes the completion land on a server that takes it, as long as the
 * outage is shorter than the heartbeat timeout.
 */
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { abortedFailure } from './cancellation';

const PROBE_EVERY_MS = 1_000;

/** The worker's client, or null where the activity runs without one (MockActivityEnvironment). */
function workerClient(ctx: Context): Client | null {
  try {
    return ctx.client;
  } catch {
    return null;
  }
}

/**
 * Resolves once the Temporal server answers (at once, one cheap RPC, when it is up); rethrows the
 * cancellation if the activity is cancelled meanwhile. Gives up waiting when the attempt's
 * start-to-close time is spent: the server has then retried the call anyway.
 */
export async function untilTemporalAnswers(ctx: Context): Promise<void> {
  const client = workerClient(ctx);
  if (!client) return;
  const { startToCloseTimeoutMs, currentAttemptScheduledTimestampMs } = ctx.info;
  const giveUpAt = currentAttemptScheduledTimestampMs + startToCloseTimeoutMs;
  for (;;) {
    try {
      await client.workflowService.getSystemInfo({});
      return;
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx, err);
      if (Date.now() >= giveUpAt) return;
      ctx.heartbeat();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, PROBE_EVERY_MS);
        ctx.cancellationSignal.addEventListener('abort', done, { once: true });
        function done() {
          clearTimeout(timer);
          ctx.cancellationSignal.removeEventListener('abort', done);
          resolve();
        }
      });
    }
  }
}
