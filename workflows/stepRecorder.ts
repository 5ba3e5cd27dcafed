/**
 * Where a run's step events are written. A step that makes exactly one activity call hands its
 * events to that call (activities/callRecord.ts writes them first), so a model or tool node costs
 * one activity and no local activity: one marker, one activation and one store round trip less per
 * node (bench/orchestration.ts, "round trips"). Every other step (a pause, several calls at once,
 * a child run, a large batch) writes its events with a local activity before anything follows.
 *
 * Events handed to a call are only known written when the call succeeds; otherwise they stay
 * pending and go out with whatever is written next (the next step, the run's last events, a
 * continue-as-new), so none is lost and none is out of order. Appends are idempotent, so a write
 * made twice (an attempt that wrote them, then failed) is harmless.
 *
 * Batch snapshots (what a fork restarts from, src/core/engine/snapshots.ts) ride only on local
 * activities, whose inputs history does not keep: they wait here for the next local write (a
 * pause, a step of several calls, the run's end).
 */
import { patched, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { AppendRunEventsInput } from '../activities/runs';
import type { EngineCall, StepResult } from '../src/core/engine';
import type { BatchSnapshot } from '../src/core/engine/snapshots';
import { CALL_TRAITS } from '../src/core/components/callContracts';
import type { NestTarget } from '../src/core/engine/runEvents';
import type { RunStatus } from '../src/core/engine/state';
import { RUN_STATUS_KEY } from '../src/core/searchAttributes';

/** The patch under which step events travel with the step's one call (histories before it write each step with a local activity). */
export const EVENTS_WITH_CALL_PATCH = 'step-events-with-call';

/** The patch under which a continue-as-new with snapshots but no events pending writes them first (histories before it wrote nothing there). */
export const TIME_TRAVEL_SNAPSHOTS_PATCH = 'time-travel-snapshots';

/**
 * Events larger than this keep their local activity: a call's input is recorded in history (a
 * local activity's is not). A model node's step is a few hundred bytes; an Iteration item's is
 * ~11 KB (its events quote the item list), which with the call took a 1,000-item Iteration from
 * ~8 to ~19 KB of history per item and from 2 to 5 executions.
 */
const WITH_CALL_MAX_CHARS = 4_000;

// Event writes are short database inserts: local activities, retried until the store answers.
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

export class StepRecorder {
  /** Events handed to the call `callId`, not known written yet. */
  private pending: { callId: string; input: AppendRunEventsInput } | null = null;
  /** Batch snapshots not written yet. */
  private snapshots: BatchSnapshot[] = [];

  constructor(
    private readonly runId: string,
    private readonly mirror: NestTarget | undefined,
    /** The status already recorded (a continued run's first step), so it is not recorded twice. */
    private recordedStatus: RunStatus | null,
    /** Started at revision 2 (workflows/definitions.ts): events go with calls without asking the patch. */
    private readonly revision2: boolean,
  ) {}

  /** Records a step before its calls are made or its pause is waited at (a promise only when a local activity writes it). */
  record(step: StepResult): Promise<void> | undefined {
    if (step.snapshots) this.snapshots.push(...step.snapshots);
    const changed = step.status !== this.recordedStatus;
    const before = this.takePending();
    const events = before ? [...before.events, ...step.events] : step.events;
    const status = changed ? step.status : before?.status;
    if (changed) upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: step.status }]);
    this.recordedStatus = step.status;
    if (events.length === 0 && status === undefined) return undefined;
    const input: AppendRunEventsInput = { runId: this.runId, events, ...(status ? { status } : {}), ...(this.mirror ? { mirror: this.mirror } : {}) };
    const call = step.status === 'running' && step.calls.length === 1 ? step.calls[0]! : null;
    if (
      call &&
      CALL_TRAITS[call.call.activity].carrier === 'activity' &&
      JSON.stringify(events).length <= WITH_CALL_MAX_CHARS &&
      (this.revision2 || patched(EVENTS_WITH_CALL_PATCH))
    ) {
      this.pending = { callId: call.callId, input };
      return undefined;
    }
    return local.appendRunEvents({ ...input, ...this.takeSnapshots() });
  }

  /** The events to hand to `call`, if its step left them to it. */
  eventsFor(call: EngineCall): AppendRunEventsInput | undefined {
    return this.pending?.callId === call.callId ? this.pending.input : undefined;
  }

  /** A call ended: when it succeeded, the events handed to it are written. */
  settled(call: EngineCall, ok: boolean): void {
    if (ok && this.pending?.callId === call.callId) this.pending = null;
  }

  /** The run's last step with the events still pending put first (they are written with it). */
  closing(step: StepResult): StepResult {
    const before = this.takePending();
    const snapshots = [...this.snapshots, ...(step.snapshots ?? [])];
    this.snapshots = [];
    return { ...step, events: before ? [...before.events, ...step.events] : step.events, ...(snapshots.length > 0 ? { snapshots } : {}) };
  }

  /** Writes what is pending now (before a continue-as-new, which takes no events along). */
  async flush(): Promise<void> {
    const before = this.takePending();
    if (before) await local.appendRunEvents({ ...before, ...this.takeSnapshots() });
    else if (this.snapshots.length > 0 && patched(TIME_TRAVEL_SNAPSHOTS_PATCH))
      await local.appendRunEvents({ runId: this.runId, events: [], ...this.takeSnapshots() });
  }

  private takeSnapshots(): { snapshots?: BatchSnapshot[] } {
    if (this.snapshots.length === 0) return {};
    const snapshots = this.snapshots;
    this.snapshots = [];
    return { snapshots };
  }

  private takePending(): AppendRunEventsInput | null {
    const before = this.pending?.input ?? null;
    this.pending = null;
    return before;
  }
}
