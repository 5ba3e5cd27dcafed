/**
 * How a document's indexing ends when it does not succeed, shared by the built-in path
 * (indexDocument) and the pipeline path (ingestPipeline): the document is marked FAIL with the
 * cause, or CANCEL, by a bookkeeping activity that a cancel cannot interrupt; a cancel then goes
 * on (the workflow ends cancelled), a failure ends the workflow with null.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';

const bookkeeping = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });

type FinishInput = Omit<Parameters<Activities['finishDocumentIndexing']>[0], 'outcome' | 'message'>;

export async function withDocumentOutcome<T>(input: FinishInput, work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    const cancelled = isCancellation(err);
    const cause =
      err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause.message : err instanceof Error ? err.message : String(err);
    await CancellationScope.nonCancellable(() =>
      bookkeeping.finishDocumentIndexing({ ...input, outcome: cancelled ? 'CANCEL' : 'FAIL', message: cancelled ? 'Canceled' : cause }),
    );
    if (cancelled) throw err;
    return null;
  }
}
