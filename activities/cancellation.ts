/**
 * What an activity throws once its cancellation signal has fired. A workflow's cancel (or a
 * server-side timeout) is confirmed by rethrowing the cancellation; a worker shutting down past
 * its grace time is not a cancel of the call at all: it fails the attempt as retryable, so that
 * another worker (or this one, restarted) carries the call out instead of the run ending with
 * whatever the call had done so far.
 */
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';

/** Whether the signal fired because this worker is shutting down. */
export function stoppedByShutdown(ctx: Context): boolean {
  if (!ctx.cancellationSignal.aborted) return false;
  if (ctx.cancellationDetails?.workerShutdown) return true;
  // The SDK reports a shutdown started on this side with no details, its reason code as the
  // CancelledFailure's message (documented as such in WorkerOptions.shutdownGraceTime).
  const reason: unknown = ctx.cancellationSignal.reason;
  return reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN';
}

/** The error that ends an activity whose cancellation signal fired (`err` when no reason is given). */
export function abortedFailure(ctx: Context, err?: unknown): unknown {
  if (stoppedByShutdown(ctx)) {
    return ApplicationFailure.create({
      type: 'WORKER_STOPPING',
      message: `The worker stopped during ${ctx.info.activityType} (attempt ${ctx.info.attempt}); another attempt carries it out`,
      nonRetryable: false,
    });
  }
  return ctx.cancellationSignal.reason ?? err;
}
