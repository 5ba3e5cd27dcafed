/**
 * A step's events can travel with the one call the step makes (workflows/stepRecorder.ts): the
 * workflow hands them to the call's activity, which writes them before it does anything else.
 * That saves the step its own local activity (a marker, an activation and a store round trip per
 * node, bench/orchestration.ts). The write is the same idempotent append, so every attempt of the
 * call may make it again.
 *
 * It must reach the store before anything the call itself writes (tokens): the store's appends of
 * one run keep their order (src/io/store/events.ts), and every call writes through that store.
 */
import { CALL_TRAITS, type ActivityCallName } from '../src/core/components/callContracts';
import type { AppendRunEventsInput } from './runs';

/** Who a model call is for, as the workflow passes it (CallOptions.ledger). */
export interface CallLedger {
  /** Our run id (the sub-agent's own run for a sub-agent's call). */
  runId: string;
  /** The node (component id) that made the call. */
  nodeId: string;
}

/** What the workflow passes beside every call's request. */
export interface CallOptions {
  /** Retries allowed for errors the call reports (RAGFlow's max_retries). */
  maxRetries: number;
  /** Events (and the status) of the step this call belongs to, not yet written. */
  record?: AppendRunEventsInput;
  /** Who a model call is for (its run and node), for the cost ledger and budgets (activities/meteredLlm.ts). */
  ledger?: CallLedger;
  /** Whose a tool call is (its run and node): its embedding and rerank requests are traced as the node's (activities/tools.ts). */
  trace?: CallLedger;
}

type CallActivity = (request: never, options: CallOptions) => Promise<unknown>;

/** The call activities among `activities`, each writing its step's events first when it is given them. */
export function recordingCalls<A extends Record<string, unknown>>(activities: A, append: (input: AppendRunEventsInput) => Promise<void>): A {
  const wrapped: Record<string, unknown> = { ...activities };
  for (const [name, traits] of Object.entries(CALL_TRAITS)) {
    if (traits.carrier !== 'activity') continue;
    const call = activities[name as ActivityCallName] as CallActivity | undefined;
    if (!call) continue;
    // A named function keeps the activity type Temporal registers (its key) and shows in traces.
    wrapped[name] = {
      async [name](request: never, options: CallOptions) {
        if (!options?.record) return call(request, options);
        // Written while the call gets going (its model request, its tool's connection): the
        // store keeps a run's appends in the order they were made, so anything the call writes
        // lands after them. The call succeeds only once they are stored.
        const written = append(options.record);
        try {
          const result = await call(request, options);
          await written;
          return result;
        } catch (err) {
          await written.catch(() => undefined);
          throw err;
        }
      },
    }[name];
  }
  return wrapped as A;
}
