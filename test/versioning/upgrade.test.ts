/**
 * A deploy with a run in flight, on the real dev server: version A of the workers starts a run
 * that pauses at UserFillUp; version B, whose canvas runs emit a different command sequence
 * (test/versioning/changedWorkflows.ts), is deployed and made current. The paused run resumes
 * through the real `submitInputs` update and finishes on A (it is pinned), the sub-agent it then
 * starts too; a new run goes to B.
 * The proof is in each run's history: which version completed every workflow task.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { createWorker, drainWorker } from '../../server/boot/worker';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/io/temporal/bundle';
import { promoteVersion } from '../../src/io/temporal/deployment';
import { listDeploymentVersions } from '../../src/io/temporal/deploymentVersions';
import { DEFAULT_RUN_SETTINGS, progressQuery, submitInputsUpdate, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, type TemporalHandles } from '../helpers/temporal';

const root = path.resolve(__dirname, '../..');
const namespace = 'default';
const deploymentName = `upgrade-test-${randomUUID().slice(0, 8)}`;
const taskQueue = `upgrade-${randomUUID()}`;
const A = { deploymentName, buildId: 'A' };
const B = { deploymentName, buildId: 'B' };
const tenantId = 'tenant-upgrade';
const model = { llm_id: 'scripted@OpenAI' };
// After the pause an Agent calls a sub-agent: a child workflow started after B became current.
const canvas = dsl({
  begin: { name: 'Begin', downstream: ['UserFillUp:f'] },
  'UserFillUp:f': { name: 'UserFillUp', params: { tips: 'Name?', inputs: { name: { type: 'line' } } }, downstream: ['Agent:a'] },
  'Agent:a': {
    name: 'Agent',
    params: { ...model, sys_prompt: 'Lead.', tools: [{ component_name: 'Agent', name: 'Helper', params: { ...model, sys_prompt: 'Helper.' } }] },
    downstream: ['Message:m'],
  },
  'Message:m': { name: 'Message', params: { content: ['Hello {UserFillUp:f@name}: {Agent:a@content}'] } },
});

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;
let bundleDir: string;
let bundleB: string;
const workers: Array<{ worker: Worker; running: Promise<void>; close(): Promise<void> }> = [];

async function startVersion(version: typeof A, workflowBundlePath: string) {
  const { worker, connection } = await createWorker({
    address: inject('temporalAddress'),
    namespace,
    taskQueue,
    projectRoot: root,
    activities: { store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' }), log: silentLogger },
    deployment: { version },
    workflowBundlePath,
  });
  const running = worker.run();
  workers.push({ worker, running, close: () => connection.close() });
}

async function startRun(): Promise<{ handle: WorkflowHandle; runId: string }> {
  const saved = await store.canvases.create({ tenantId, title: `upgrade ${randomUUID()}`, dsl: canvas });
  const deps: LaunchDeps = { store, client: temporal.client, taskQueue, settings: DEFAULT_RUN_SETTINGS };
  const run = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query: 'hi', inputs: null, files: [], userId: 'u', session: null });
  const handle = temporal.client.workflow.getHandle(run.workflowId);
  // B's runs register the query after their timer: asking earlier is answered "not registered".
  const pending = () =>
    handle.query(progressQuery).then(
      (p) => Boolean(p.pendingInputs),
      () => false,
    );
  await until(pending, 'the run to pause at UserFillUp');
  return { handle, runId: run.runId };
}

/** Which version completed each workflow task, and the run's commands in order (event types). */
async function versionsAndCommands(handle: WorkflowHandle): Promise<{ taskVersions: string[]; commands: string[] }> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const taskVersions = events
    .filter((e) => e.workflowTaskCompletedEventAttributes)
    .map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? '(unversioned)');
  const commandTypes = new Set([
    'activityTaskScheduledEventAttributes',
    'timerStartedEventAttributes',
    'markerRecordedEventAttributes',
    'workflowExecutionCompletedEventAttributes',
  ]);
  const commands = events.flatMap((e) => Object.keys(e).filter((k) => commandTypes.has(k) && e[k as keyof typeof e]));
  return { taskVersions, commands };
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  [store, temporal, llm] = await Promise.all([openStore({}), connectTemporal(), startScriptedLlm()]);
  const toolsDone = (call: RecordedCall) => call.body.messages.filter((m) => m.role === 'tool').length;
  llm.whenPromptIncludes('Lead.', (call) =>
    toolsDone(call) === 0
      ? { toolCalls: [{ id: 's', name: 'Helper_0', arguments: JSON.stringify({ user_prompt: 'look it up', reasoning: 'r', context: 'c' }) }] }
      : { content: 'done' },
  );
  llm.whenPromptIncludes('Helper.', { content: 'found it' });
  await store.tenants.ensure(tenantId, 'upgrade test');
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, 'changedWorkflows.ts'),
    ...WORKFLOW_BUNDLER_OPTIONS,
    logger: new DefaultLogger('WARN'),
  });
  bundleDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-version-b-'));
  bundleB = path.join(bundleDir, 'workflow-bundle.js');
  writeFileSync(bundleB, bundle.code);
}, 300_000);

afterAll(async () => {
  for (const w of workers) await drainWorker(w.worker, w.running).catch(() => {});
  for (const w of workers) await w.close().catch(() => {});
  await Promise.all([temporal?.close(), store?.close(), llm?.stop()]);
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('deploying a new worker version with a run paused on the old one', () => {
  it('finishes the paused run (and the sub-agent it starts) on A, sends the new run to B, and refuses to route back to A', async () => {
    await startVersion(A, inject('workflowBundlePath'));
    expect(await promoteVersion(temporal.connection, namespace, A)).toEqual({ action: 'promoted', previous: null });
    const { handle: paused, runId: pausedRunId } = await startRun();

    await startVersion(B, bundleB);
    expect(await promoteVersion(temporal.connection, namespace, B)).toEqual({ action: 'promoted', previous: `${deploymentName}:A` });
    // A's worker restarting mid-rollout must not take new runs back to old code.
    expect(await promoteVersion(temporal.connection, namespace, A)).toEqual({ action: 'kept', current: `${deploymentName}:B` });

    // The operator's view while A still holds the paused run.
    await until(async () => {
      const versions = await listDeploymentVersions(temporal.connection, namespace, deploymentName);
      return versions?.find((v) => v.buildId === 'A')?.paused === 1;
    }, 'visibility to count the run paused on A');
    const during = await listDeploymentVersions(temporal.connection, namespace, deploymentName);
    expect(during?.map((v) => [v.buildId, v.role, v.running, v.paused, v.retire.ok])).toEqual([
      ['A', 'draining', 1, 1, false],
      ['B', 'current', 0, 0, false],
    ]);

    await paused.executeUpdate(submitInputsUpdate, { args: [{ inputs: { name: 'Ada' } }] });
    expect(await paused.result()).toMatchObject({ status: 'finished', content: 'Hello Ada: done' } satisfies Partial<CanvasRunResult>);

    const { handle: fresh, runId: freshRunId } = await startRun();
    await fresh.executeUpdate(submitInputsUpdate, { args: [{ inputs: { name: 'Grace' } }] });
    expect(await fresh.result()).toMatchObject({ status: 'finished', content: 'Hello Grace: done' });

    const old = await versionsAndCommands(paused);
    const next = await versionsAndCommands(fresh);
    process.stdout.write(`paused run tasks by version: ${old.taskVersions.join(' ')}; new run: ${next.taskVersions.join(' ')}\n`);
    // Every task of the paused run, the ones after B became current included, ran on A: A's
    // commands, without B's timer before the first step (A's own timers come later: an answered
    // form's task ends on one, patch inputs-confirmed-before-continuation).
    expect(old.taskVersions.length).toBeGreaterThanOrEqual(2);
    expect(new Set(old.taskVersions)).toEqual(new Set(['A']));
    expect(old.commands[0]).not.toBe('timerStartedEventAttributes');
    // The new run ran on B, whose first command is the timer A never emits.
    expect(new Set(next.taskVersions)).toEqual(new Set(['B']));
    expect(next.commands[0]).toBe('timerStartedEventAttributes');
    // A sub-agent started after B became current still ran on its parent's version.
    const childOf = async (runId: string) => {
      const [child] = await store.runs.children(runId);
      return versionsAndCommands(temporal.client.workflow.getHandle(child!.workflow_id));
    };
    expect(new Set((await childOf(pausedRunId)).taskVersions)).toEqual(new Set(['A']));
    expect(new Set((await childOf(freshRunId)).taskVersions)).toEqual(new Set(['B']));
    const described = await paused.describe();
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe('A');

    // Why pinning matters: the paused run's history does not replay on B's code.
    const history = await paused.fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: bundleB } }, history, paused.workflowId)).rejects.toThrow(/[Nn]ondeterminism/);

    await until(async () => {
      const versions = await listDeploymentVersions(temporal.connection, namespace, deploymentName);
      return versions?.find((v) => v.buildId === 'A')?.running === 0;
    }, 'visibility to see A empty');
    const after = await listDeploymentVersions(temporal.connection, namespace, deploymentName);
    expect(after?.find((v) => v.buildId === 'A')?.retire.ok).toBe(true);
  }, 300_000);
});
