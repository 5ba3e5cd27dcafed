/**
 * One canvas run as a Temporal workflow. It only drives the pure engine (workflows/workflowCarrier.ts):
 * everything the run decides is in the engine; everything it touches is in activities.
 */
import { continueAsNew, patched, proxyLocalActivities, setWorkflowOptions, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import { forkRun } from '../src/core/engine/fork';
import { frozenTools, TIME_TRAVEL_REPLAY_PATCH } from './frozenTools';
import {
  CANCELED_MESSAGE,
  canvasFromPrepared,
  compileCanvas,
  rejectRun,
  sessionAfter,
  startRun,
  type CompiledCanvas,
  type CompileResult,
  type StepResult,
} from '../src/core/engine';
import type { CanvasDsl } from '../src/core/dsl/schema';
import { maxConcurrency, type IterationParams } from '../src/core/components/Iteration';
import { ZERO_USAGE } from '../src/core/engine/state';
import { memoryIdsOf } from '../src/core/engine/memorySave';
import { describeProblems } from '../src/errors';
import { RUN_STATUS_KEY } from '../src/core/searchAttributes';
import { startedAtRevision2, type CanvasRunInput, type CanvasRunResult } from './definitions';
import { finalizeRun, resumedStep, runInWorkflow } from './workflowCarrier';

/**
 * The patch under which an Iteration with `max_concurrency` > 0 fans its items out
 * (src/core/engine/parallelItems.ts); histories before it ran every Iteration one item at a time.
 */
export const PARALLEL_ITERATION_PATCH = 'parallel-iteration-items';

/** The patch under which `auto_play` Messages call `speak` (histories before it made no such call). */
export const MESSAGE_AUTO_PLAY_PATCH = 'message-auto-play';

/** The patch under which Messages with `memory_ids` save their turn (histories before it made no such call). */
export const MESSAGE_MEMORY_PATCH = 'message-memory-save';

/** The patch under which a run whose input names a fork starts from the source run's snapshot (time travel). */
export const TIME_TRAVEL_FORK_PATCH = 'time-travel-fork';

/**
 * The patch under which a fork inside an item of a parallel Iteration answers the items before it
 * with the source's values instead of running them (src/core/engine/parallelItems.ts, ReusedItems).
 */
export const TIME_TRAVEL_FORK_ITEM_PATCH = 'time-travel-fork-item';

const travel = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', nonRetryableErrorTypes: ['NOT_FOUND'] },
});

/** The run's canvas: rebuilt from what the API compiled when the input carries it, else compiled here. */
function runCanvas(input: CanvasRunInput): CompileResult | { ok: true; canvas: CompiledCanvas } {
  const prepared = input.prepared ? canvasFromPrepared(input.dsl as CanvasDsl, input.prepared) : null;
  return prepared ? { ok: true, canvas: prepared } : compileCanvas(input.dsl);
}

export async function canvasRun(input: CanvasRunInput): Promise<CanvasRunResult> {
  const revision2 = startedAtRevision2(input);
  const compiled = runCanvas(input);
  if (!compiled.ok) {
    const error = describeProblems('The canvas is invalid', compiled.problems);
    const result: CanvasRunResult = { status: 'failed', content: '', outputs: null, usage: { ...ZERO_USAGE }, error };
    upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: 'failed' }]);
    await finalizeRun(
      {
        runId: input.runId,
        sessionId: input.sessionId,
        messageId: input.messageId,
        result,
        session: null,
        events: rejectRun(input, error, Date.now()),
        ...(input.nest ? { mirror: input.nest } : {}),
      },
      revision2,
    );
    return result;
  }
  const canvas = compiled.canvas;
  const { settings } = input;
  // RUN_SNAPSHOTS=off: no snapshots, so the run cannot be forked (the API says so).
  const keepSnapshots = !input.nest && settings.snapshots !== false;
  const engineOptions = { maxSteps: settings.maxSteps, snapshots: keepSnapshots };
  const first = input.checkpoint
    ? resumedStep(input.checkpoint)
    : input.fork && patched(TIME_TRAVEL_FORK_PATCH)
      ? forkRun(
          canvas,
          await travel.loadForkSnapshot({ sourceRunId: input.fork.sourceRunId, position: input.fork.position }),
          { runId: input.runId, messageId: input.messageId, overrides: input.fork.overrides },
          Date.now(),
          engineOptions,
        )
      : startRun(
          canvas,
          {
            runId: input.runId,
            messageId: input.messageId,
            query: input.query,
            inputs: input.inputs,
            files: input.files,
            userId: input.userId,
            session: input.session,
            toolCalling: settings.toolCalling,
            // Asked only of canvases with an auto_play Message, so other runs record no marker.
            speech:
              Object.values(canvas.nodes).some((n) => (n.params as { auto_play?: unknown }).auto_play === true) &&
              (revision2 || patched(MESSAGE_AUTO_PLAY_PATCH)),
            // Asked only of canvases with a parallel Iteration, so other runs record no marker; newer
            // than revision 2, so a revision-2 run asks too.
            parallelItems:
              Object.values(canvas.nodes).some((n) => n.type === 'Iteration' && maxConcurrency(n.params as IterationParams) > 0) &&
              patched(PARALLEL_ITERATION_PATCH),
            // Asked only of canvases with a Message naming memories, so other runs record no marker.
            memorySave: Object.values(canvas.nodes).some((n) => n.type === 'Message' && memoryIdsOf(n.params).length > 0) && patched(MESSAGE_MEMORY_PATCH),
            ...(input.webhook ? { webhook: input.webhook } : {}),
            ...(input.announced ? { announced: true } : {}),
          },
          Date.now(),
          engineOptions,
        );
  return runInWorkflow(canvas, first, {
    runId: input.runId,
    settings,
    recordedStatus: input.checkpoint ? input.checkpoint.state.status : revision2 ? 'running' : null,
    revision2,
    ...(input.nest ? { mirror: input.nest } : { keepSnapshots }),
    ...(input.fork?.items && patched(TIME_TRAVEL_FORK_ITEM_PATCH) ? { reuseItems: input.fork.items } : {}),
    ...(input.replay?.tools === 'frozen' && patched(TIME_TRAVEL_REPLAY_PATCH) ? { frozen: frozenTools(input.replay.sourceRunId) } : {}),
    finalize: (step) => finalize(input, step, revision2),
    // The conversation state moves with the checkpoint; the session input is only for the start.
    continueAsNew: (checkpoint) => continueAsNew<typeof canvasRun>({ ...input, session: null, checkpoint }),
  });
}

async function finalize(input: CanvasRunInput, step: StepResult, revision2: boolean): Promise<CanvasRunResult> {
  const state = step.state;
  const last = state.path[state.path.length - 1];
  const result: CanvasRunResult = {
    status: state.status,
    content: state.display.shownText,
    outputs: state.status === 'canceled' ? CANCELED_MESSAGE : last ? (state.outputs[last] ?? null) : null,
    usage: state.usage,
    error: state.status === 'finished' ? null : state.error,
  };
  await finalizeRun(
    {
      runId: input.runId,
      sessionId: input.sessionId,
      messageId: input.messageId,
      result,
      session: state.status === 'finished' ? sessionAfter(state) : null,
      events: step.events,
      ...(input.nest ? { mirror: input.nest } : {}),
      ...(step.snapshots ? { snapshots: step.snapshots } : {}),
    },
    revision2,
  );
  return result;
}

// Pinned: a run (paused for days at UserFillUp, say) replays on the code that started it; see docs/ARCHITECTURE.md, "Deploying workflow changes".
// Declared only on a versioned worker: the server refuses a behavior from an unversioned one (the tests' workers).
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {}), canvasRun);
