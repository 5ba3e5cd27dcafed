/**
 * Time travel over the API (docs/ARCHITECTURE.md, "Time travel"): a fork of a run from one of its
 * components, and a rerun of a failed run from its failed component. Both start a new run whose
 * workflow loads the source's snapshot from before that component (workflows/canvasRun.ts), on
 * the source's canvas version (a fork, unless it names another) or the canvas as it is now (a
 * rerun), with the fork's params edits applied and checked as a canvas save checks them.
 */
import { copyJson } from '../../src/core/dsl/jsonCopy';
import { redactSecrets, slimForRun } from '../../src/core/dsl/secrets';
import { announcement, type CompiledCanvas } from '../../src/core/engine';
import { overrideProblems, passSavings, reusedComponents, savingsOf, type Savings, type SnapshotEntry } from '../../src/core/engine/fork';
import { forkPoint, passEnd, ranInPass, reusedItemValues, type ForkPoint } from '../../src/core/engine/forkPoint';
import type { ReusedItems } from '../../src/core/engine/parallelItems';
import type { RunState } from '../../src/core/engine/state';
import { CANVAS_ID_KEY, RUN_STATUS_KEY, TENANT_ID_KEY } from '../../src/core/searchAttributes';
import { AppError, describeProblems, type Problem } from '../../src/errors';
import type { CanvasRecord, RunRecord, Store } from '../../src/io/store/contract';
import { canvasRunInput, RUN_REVISION, workflowIdFor } from '../../workflows/definitions';
import { acceptCanvas } from '../canvasInput';
import { newId } from '../../src/io/store/time';
import { startsEagerly, type LaunchDeps } from './runLauncher';

export interface ForkRequest {
  /** The component the new run starts from. */
  from: string;
  /** Values the forked components read: `<component_id>@<output>`, `sys.<name>` or `env.<name>`. */
  inputs?: Record<string, unknown>;
  /** Params to change, by component id (merged over the component's params). */
  params?: Record<string, Record<string, unknown>>;
  /** A version of the canvas to run instead of the one the source ran. */
  dsl_version?: string;
  /**
   * When `from` is inside an Iteration or Loop: which item (0-based, IterationItem's `index`; a
   * Loop's pass) restarts. Earlier items' results are reused, later items run. Absent: the first.
   */
  item?: number;
}

export interface TravelledRun {
  task_id: string;
  workflow_id: string;
  forked_from: { task_id: string; component_id: string; item?: number };
  reused: string[];
  savings: Savings;
}

/** The run of this tenant, or 404 (another tenant's run is not found either). */
async function sourceRun(store: Store, tenantId: string, id: string): Promise<RunRecord> {
  const run = await store.runs.get(tenantId, id);
  if (!run) throw new AppError('NOT_FOUND', `No run ${id}`);
  return run;
}

/** The DSL a fork runs: the version named, else the one the source ran (`current`: the canvas as saved now). */
async function baseDsl(store: Store, canvas: CanvasRecord, source: RunRecord, req: { dsl_version?: string; current?: boolean }) {
  if (req.dsl_version !== undefined) {
    const v = await store.canvases.getVersion(canvas.tenant_id, canvas.id, req.dsl_version);
    if (!v)
      throw new AppError('NOT_FOUND', `No version ${req.dsl_version} of canvas ${canvas.id}`, {
        problems: [{ path: '$.dsl_version', message: 'no such version' }],
      });
    return { dsl: v.dsl, versionId: v.id };
  }
  const versionId = req.current ? canvas.version_id : (source.canvas_version_id ?? canvas.version_id);
  if (versionId === canvas.version_id) return { dsl: canvas.dsl, versionId };
  const v = await store.canvases.getVersion(canvas.tenant_id, canvas.id, versionId);
  return v ? { dsl: v.dsl, versionId } : { dsl: canvas.dsl, versionId: canvas.version_id };
}

/** The DSL with the params edits merged in, validated as a save is; problems by the request's JSON path. */
export function editedCanvas(
  dsl: Record<string, unknown>,
  params: Record<string, Record<string, unknown>>,
): { dsl: Record<string, unknown>; compiled: CompiledCanvas } {
  const edited = copyJson(dsl);
  const components = (edited.components ?? {}) as Record<string, { obj?: { params?: Record<string, unknown> } }>;
  const missing: Problem[] = [];
  for (const [id, change] of Object.entries(params)) {
    const obj = components[id]?.obj;
    if (!obj) missing.push({ path: `$.params[${JSON.stringify(id)}]`, message: 'no such component in the canvas' });
    else obj.params = { ...obj.params, ...change };
  }
  if (missing.length > 0) throw new AppError('DSL_INVALID', describeProblems('Invalid params', missing), { problems: missing });
  try {
    const accepted = acceptCanvas(edited, []);
    return { dsl: accepted.dsl, compiled: accepted.compiled };
  } catch (err) {
    if (!(err instanceof AppError) || !err.details.problems) throw err;
    // `$.components["X"].obj.params.y` is `$.params["X"].y` of the request.
    const problems = err.details.problems.map((p) => ({ ...p, path: p.path.replace(/^\$\.components(\[[^\]]+\])\.obj\.params/, '$.params$1') }));
    throw new AppError('DSL_INVALID', describeProblems('Invalid params', problems), { problems });
  }
}

/** Starts a fork of `sourceId` from `req.from` (or a rerun: `kind` rerun, the canvas as saved now). */
export async function forkRun(deps: LaunchDeps, tenantId: string, sourceId: string, req: ForkRequest, kind: 'fork' | 'rerun' = 'fork'): Promise<TravelledRun> {
  const { store } = deps;
  const source = await sourceRun(store, tenantId, sourceId);
  const canvas = await store.canvases.get(tenantId, source.canvas_id);
  if (!canvas) throw new AppError('NOT_FOUND', `The canvas ${source.canvas_id} of run ${source.id} no longer exists`);
  const base = await baseDsl(store, canvas, source, { ...(req.dsl_version !== undefined ? { dsl_version: req.dsl_version } : {}), current: kind === 'rerun' });
  const { dsl, compiled } = editedCanvas(base.dsl, req.params ?? {});
  const fromProblem = (message: string) => new AppError('BAD_REQUEST', `from: ${message}`, { problems: [{ path: '$.from', message }] });
  if (!compiled.nodes[req.from]) throw fromProblem(`no component ${req.from} in the canvas`);
  const entries = await store.travel.listSnapshots(source.id);
  if (entries.length === 0)
    throw fromProblem(
      `run ${source.id} has no snapshots to fork from: it was made before time travel kept them (or with RUN_SNAPSHOTS=off). Replay it instead: POST /api/v1/runs/${source.id}/replay runs it again from the start`,
    );
  const point = forkPoint(entries, compiled, source.id, req.from, kind === 'rerun' ? 'last' : req.item);
  if ('problem' in point) throw new AppError('BAD_REQUEST', `${point.problem.path.slice(2)}: ${point.problem.message}`, { problems: [point.problem] });
  const entry = point.entry;
  const snapshot = await store.travel.getSnapshot(source.id, entry.position);
  if (!snapshot) throw fromProblem(`run ${source.id} never reached ${req.from}`);
  const reused = reusedComponents(snapshot);
  const inputs = req.inputs ?? {};
  const problems = overrideProblems(snapshot, inputs, reused);
  if (problems.length > 0) throw new AppError('BAD_REQUEST', describeProblems('Invalid inputs', problems), { problems });
  const { savings, items } = await pointSavings(store, source.id, entries, compiled, point, snapshot, reused, req.from);

  const runId = newId();
  const messageId = newId();
  const workflowId = workflowIdFor(canvas.id, runId);
  const now = Date.now();
  await store.starts.run({
    run: { id: runId, tenantId, canvasId: canvas.id, workflowId, canvasVersionId: base.versionId },
    sessionId: null,
    announcement: announcement({ runId, messageId, inputs: snapshot.inputs.echo }, now),
    now,
  });
  const forkedFrom = { task_id: source.id, component_id: req.from, ...(point.kind === 'component' ? {} : { item: point.item }) };
  await store.travel.record({
    run_id: runId,
    tenant_id: tenantId,
    kind,
    source_run_id: source.id,
    from_component: req.from,
    from_item: point.kind === 'component' ? null : point.item,
    reused,
    savings: { ...savings },
    create_time: now,
  });
  // The fork can itself be forked upstream of its start: it has the source's snapshots up to there.
  await store.travel.copySnapshots(source.id, runId, entry.position);
  const input = canvasRunInput({
    runId,
    messageId,
    tenantId,
    canvas: { id: canvas.id, title: canvas.title, dsl: redactSecrets(slimForRun(dsl)) },
    query: snapshot.globals['sys.query'] ?? '',
    inputs: snapshot.inputs.echo,
    userId: String(snapshot.globals['sys.user_id'] ?? tenantId),
    settings: deps.settings,
  });
  input.announced = true;
  input.revision = RUN_REVISION;
  input.fork = { sourceRunId: source.id, position: entry.position, overrides: inputs, ...(items ? { items } : {}) };
  await deps.client.workflow.start('canvasRun', {
    taskQueue: deps.taskQueue,
    workflowId,
    args: [input],
    memo: { title: canvas.title, canvasVersionId: base.versionId, forkedFrom },
    requestEagerStart: startsEagerly(deps.client),
    typedSearchAttributes: [
      { key: CANVAS_ID_KEY, value: canvas.id },
      { key: TENANT_ID_KEY, value: tenantId },
      { key: RUN_STATUS_KEY, value: 'running' },
    ],
  });
  return { task_id: runId, workflow_id: workflowId, forked_from: forkedFrom, reused, savings };
}

/**
 * What a fork at `point` saves, and for a parallel Iteration's item the earlier items' values:
 * an item's fork checks that `from` ran in that item and counts every earlier item's calls.
 */
async function pointSavings(
  store: Store,
  sourceId: string,
  entries: readonly SnapshotEntry[],
  canvas: CompiledCanvas,
  point: ForkPoint,
  snapshot: RunState,
  reused: string[],
  from: string,
): Promise<{ savings: Savings; items?: ReusedItems }> {
  const itemProblem = (message: string) => new AppError('BAD_REQUEST', `item: ${message}`, { problems: [{ path: '$.item', message }] });
  if (point.kind === 'items') {
    const savings = savingsOf(snapshot, reused);
    if (point.item === 0) return { savings };
    // The first snapshot after the Iteration's batch has its collected outputs (it finished by then).
    const after = entries.find((e) => e.position > point.entry.position);
    const state = after ? await store.travel.getSnapshot(sourceId, after.position) : null;
    const values = state
      ? reusedItemValues(state, point.iterationId, point.item)
      : { problem: { path: '$.item', message: `the source's ${point.iterationId} did not finish its items: fork at ${point.iterationId}` } };
    if ('problem' in values) throw itemProblem(values.problem.message);
    return { savings, items: { iterationId: point.iterationId, values } };
  }
  if (point.kind === 'component') return { savings: savingsOf(snapshot, reused) };
  const loaded = await Promise.all(
    point.passes.map((p) => (p.position === point.entry.position ? Promise.resolve(snapshot) : store.travel.getSnapshot(sourceId, p.position))),
  );
  const states = loaded.filter((x): x is RunState => x !== null);
  if (states.length !== loaded.length) throw itemProblem(`run ${sourceId} lost a snapshot of ${point.loopId}'s items`);
  // The snapshot that closes this item (the next item's, or the batch after the loop) shows whether `from` ran in it.
  const end = passEnd(entries, canvas, point);
  const endState = end ? await store.travel.getSnapshot(sourceId, end.position) : null;
  if (end && endState && !ranInPass(endState, point.entry, end, from)) throw itemProblem(`${from} did not run in item ${point.item} of ${point.loopId}`);
  return { savings: passSavings(canvas, point.loopId, point.passes, states, reused) };
}

/** Reruns a failed run from the component that failed, on the canvas as saved now. */
export async function rerunFailed(deps: LaunchDeps, tenantId: string, sourceId: string): Promise<TravelledRun> {
  const source = await sourceRun(deps.store, tenantId, sourceId);
  if (source.status !== 'failed')
    throw new AppError('CONFLICT', `Run ${source.id} did not fail (${source.status}): only a failed run is rerun from its failed component`);
  const failed = await failedComponent(deps.store, source.id);
  if (!failed) throw new AppError('CONFLICT', `Run ${source.id} failed before any component did (its canvas did not compile?): start it anew`);
  return forkRun(deps, tenantId, sourceId, { from: failed }, 'rerun');
}

/** The last component whose node_finished carries an error. */
async function failedComponent(store: Store, runId: string): Promise<string | null> {
  let failed: string | null = null;
  let after = null;
  for (;;) {
    const page = await store.events.list(runId, after, 500);
    for (const e of page) {
      const data = e.data as { component_id?: string; error?: unknown };
      if (e.event === 'node_finished' && data.error && data.component_id) failed = data.component_id;
    }
    if (page.length < 500) return failed;
    const last = page.at(-1)!;
    after = { seq: last.seq, sub: last.sub };
  }
}
