/**
 * Replay (docs/API.md, "Time travel"): a run again from the start with its model calls going to
 * other models (`model_map`) and, with tools frozen, every tool call answered with what the source
 * run's call of the same component and order returned (workflows/frozenTools.ts). The source's
 * tool calls are read once from its Temporal history (every activity's result is there, its
 * component named by the call's summary) into the call journal. A replay's details carry a
 * per-component diff against the source: answer text and tool calls chosen.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { redactSecrets, slimForRun } from '../../src/core/dsl/secrets';
import { announcement } from '../../src/core/engine';
import { diffRuns, type ReplayDiff } from '../../src/core/engine/replayDiff';
import { CALL_TRAITS, type CallName } from '../../src/core/components/callContracts';
import { CANVAS_ID_KEY, RUN_STATUS_KEY, TENANT_ID_KEY } from '../../src/core/searchAttributes';
import { AppError, type Problem } from '../../src/errors';
import type { JournalEntry, Store } from '../../src/io/store/contract';
import { RUN_REVISION, workflowIdFor, type CanvasRunInput } from '../../workflows/definitions';
import { newId } from '../../src/io/store/time';
import { startsEagerly, type LaunchDeps } from './runLauncher';
import { editedCanvas } from './travel';

export interface ReplayRequest {
  model_map: Record<string, string>;
  tools: 'frozen' | 'live';
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const isToolActivity = (name: string) => {
  const traits = (CALL_TRAITS as Record<string, (typeof CALL_TRAITS)[CallName] | undefined>)[name];
  return traits !== undefined && traits.carrier === 'activity' && traits.usage === 'none' && name !== 'speak';
};

/** Every execution's events of the run's workflow, first to last (a continued run has several). */
async function runHistory(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const described = await client.workflow.getHandle(workflowId).describe();
  let runId: string | null | undefined = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
  const events: HistoryEvent[] = [];
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const mine: HistoryEvent[] = history.events ?? [];
    events.push(...mine);
    runId = mine.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return events;
}

const payload = <T>(p: temporal.api.common.v1.IPayload | null | undefined): T | undefined => (p ? defaultPayloadConverter.fromPayload<T>(p) : undefined);

/** The tool calls a history made, by component and order, with their results. */
export function journalOf(events: readonly HistoryEvent[]): JournalEntry[] {
  const scheduled = new Map<string, JournalEntry>();
  const counts = new Map<string, number>();
  const entries: JournalEntry[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s && isToolActivity(s.activityType?.name ?? '')) {
      // The call's summary is `<component id>: <what it does>` (src/core/engine/step.ts).
      const summary = payload<string>(e.userMetadata?.summary) ?? '';
      const componentId = summary.split(': ')[0]!;
      const idx = counts.get(componentId) ?? 0;
      counts.set(componentId, idx + 1);
      scheduled.set(String(e.eventId), {
        component_id: componentId,
        idx,
        activity: s.activityType!.name!,
        ok: false,
        result: { error: 'the call did not end' },
      });
    }
    const done = e.activityTaskCompletedEventAttributes;
    const entry = done ? scheduled.get(String(done.scheduledEventId)) : undefined;
    if (done && entry) entries.push({ ...entry, ok: true, result: payload(done.result?.payloads?.[0]) ?? null });
    const failed = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    const lost = failed ? scheduled.get(String(failed.scheduledEventId)) : undefined;
    if (failed && lost) entries.push({ ...lost, result: { error: failed.failure?.cause?.message ?? failed.failure?.message ?? 'the call failed' } });
  }
  return entries;
}

/** The DSL with each model `llm_id` the map names replaced, wherever params hold one (an Agent's tools too). */
export function mapModels(dsl: Record<string, unknown>, modelMap: Record<string, string>): { dsl: Record<string, unknown>; used: Set<string> } {
  const used = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => {
        if (k === 'llm_id' && typeof x === 'string' && modelMap[x] !== undefined) {
          used.add(x);
          return [k, modelMap[x]];
        }
        return [k, walk(x)];
      }),
    );
  };
  return { dsl: { ...dsl, components: walk(dsl.components) }, used };
}

/** Records a replay of `sourceId` (its row, announcement, journal) and returns the workflow start it needs. */
export async function prepareReplay(deps: LaunchDeps, tenantId: string, sourceId: string, req: ReplayRequest) {
  const { store, client } = deps;
  const source = await store.runs.get(tenantId, sourceId);
  if (!source) throw new AppError('NOT_FOUND', `No run ${sourceId}`);
  if (source.status !== 'finished' && source.status !== 'failed')
    throw new AppError('CONFLICT', `Run ${source.id} is ${source.status}: only an ended run (finished or failed) is replayed`);
  const events = await runHistory(client, source.workflow_id);
  const started = payload<CanvasRunInput>(events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  if (!started) throw new AppError('CONFLICT', `The history of run ${source.id} holds no start`);
  const canvas = await store.canvases.get(tenantId, source.canvas_id);
  if (!canvas) throw new AppError('NOT_FOUND', `The canvas ${source.canvas_id} of run ${source.id} no longer exists`);
  const version =
    source.canvas_version_id && source.canvas_version_id !== canvas.version_id
      ? await store.canvases.getVersion(tenantId, canvas.id, source.canvas_version_id)
      : null;
  const mapped = mapModels(version?.dsl ?? canvas.dsl, req.model_map);
  const unused: Problem[] = Object.keys(req.model_map)
    .filter((m) => !mapped.used.has(m))
    .map((m) => ({ path: `$.model_map[${JSON.stringify(m)}]`, message: 'no component of the canvas uses this model' }));
  if (unused.length > 0) throw new AppError('BAD_REQUEST', `model_map: ${unused.map((p) => p.message).join('; ')}`, { problems: unused });
  const { dsl } = editedCanvas(mapped.dsl, {});
  const journal = req.tools === 'frozen' ? journalOf(events) : [];
  if (journal.length > 0) await store.travel.putJournal(source.id, journal);

  const runId = newId();
  const messageId = newId();
  const workflowId = workflowIdFor(canvas.id, runId);
  const now = Date.now();
  await store.starts.run({
    run: { id: runId, tenantId, canvasId: canvas.id, workflowId, canvasVersionId: source.canvas_version_id },
    sessionId: null,
    announcement: announcement({ runId, messageId, inputs: started.inputs }, now),
    now,
  });
  const savings = {
    calls_avoided: journal.length,
    model_calls_avoided: 0,
    tool_calls_avoided: journal.length,
    tokens_saved: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    components: [],
  };
  await store.travel.record({
    run_id: runId,
    tenant_id: tenantId,
    kind: 'replay',
    source_run_id: source.id,
    from_component: null,
    reused: [],
    savings,
    create_time: now,
  });
  const { prepared: _compiledForOtherModels, checkpoint: _notAContinuation, sessionId: _noSession, ...same } = started;
  const input: CanvasRunInput = {
    ...same,
    runId,
    messageId,
    sessionId: null,
    dsl: redactSecrets(slimForRun(dsl)),
    settings: deps.settings,
    announced: true,
    revision: RUN_REVISION,
    replay: { sourceRunId: source.id, tools: req.tools },
  };
  const memo = { title: canvas.title, canvasVersionId: source.canvas_version_id, replayOf: source.id };
  const searchAttributes = { canvasId: canvas.id, tenantId };
  return { input, memo, searchAttributes, answer: { task_id: runId, workflow_id: workflowId, replay_of: source.id, tools: req.tools, savings } };
}

/** Starts a replay of `sourceId`; answers the new run's ids and what freezing tools saves. */
export async function replayRun(deps: LaunchDeps, tenantId: string, sourceId: string, req: ReplayRequest) {
  const { input, memo, answer } = await prepareReplay(deps, tenantId, sourceId, req);
  await deps.client.workflow.start('canvasRun', {
    taskQueue: deps.taskQueue,
    workflowId: answer.workflow_id,
    args: [input],
    memo,
    requestEagerStart: startsEagerly(deps.client),
    typedSearchAttributes: [
      { key: CANVAS_ID_KEY, value: input.canvasId },
      { key: TENANT_ID_KEY, value: tenantId },
      { key: RUN_STATUS_KEY, value: 'running' },
    ],
  });
  return answer;
}

/** Per component of either run: its answer and tool calls in the source and in the replay, and whether they changed. */
export async function replayDiff(store: Store, sourceId: string, replayId: string): Promise<ReplayDiff> {
  const [before, after] = await Promise.all([store.events.list(sourceId, null, 100_000), store.events.list(replayId, null, 100_000)]);
  return diffRuns(before, after);
}
