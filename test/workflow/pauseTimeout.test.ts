/**
 * A UserFillUp pause that nobody answers, with the timeouts people really set (days), on the
 * time-skipping test server (test/helpers/timeSkipping.ts): the server jumps to the pause's
 * timer while the test awaits the result, so a two-day wait takes about a second.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import type { Store } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startWorker, type RunningWorker } from '../helpers/temporal';
import { startTimeSkippingServer, timeSkippingUnavailable } from '../helpers/timeSkipping';

const TWO_DAYS_S = 2 * 24 * 3600;
const tenantId = 'tenant-pause-timeout';
const unavailable = timeSkippingUnavailable();
if (unavailable) console.warn(`[pause timeout] skipped: no time-skipping test server: ${unavailable}`);

let env: TestWorkflowEnvironment;
let store: Store;
let llm: ScriptedLlm;
let worker: RunningWorker;

beforeAll(async () => {
  if (unavailable) return;
  [env, store, llm] = await Promise.all([startTimeSkippingServer(), openStore({}), startScriptedLlm()]);
  await store.tenants.ensure(tenantId, 'pause timeout tests');
  worker = await startWorker({ nativeConnection: env.nativeConnection, store, llmBaseUrl: llm.url });
  // The first use resolves the server's jars from Maven Central (~50 s here), then they are cached.
}, 600_000);

afterAll(async () => {
  await worker?.stop();
  await Promise.all([llm?.stop(), store?.close()]);
  await env?.teardown();
});

const formCanvas = (userFillUp: Record<string, unknown>) =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': {
      name: 'UserFillUp',
      params: { tips: 'How many?', inputs: { count: { type: 'integer', optional: false } }, ...userFillUp },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['You asked for {UserFillUp:ask@count}.'] } },
    'Message:late': { name: 'Message', params: { content: ['Nobody answered in time.'] } },
  });

async function runUnanswered(canvasDsl: Record<string, unknown>, settings: Partial<LaunchDeps['settings']> = {}) {
  const canvas = await store.canvases.create({ tenantId, title: `pause timeout ${Date.now()}`, dsl: canvasDsl });
  const deps: LaunchDeps = { store, client: env.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, ...settings } };
  const launched = await launchRun(deps, { tenantId, canvas, sessionId: null, query: 'hi', inputs: null, files: [], userId: 'u1', session: null });
  const startedAtMs = await env.currentTimeMs();
  // Awaiting the result through the environment's client is what lets the server skip time.
  const result = (await env.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
  return { result, waitedMs: (await env.currentTimeMs()) - startedAtMs };
}

describe.skipIf(unavailable !== null)('a pause nobody answers, on the time-skipping server', () => {
  it('takes the exception branch when nobody answers a two-day pause in time', async () => {
    const { result, waitedMs } = await runUnanswered(formCanvas({ timeout: TWO_DAYS_S, exception_method: 'goto', exception_goto: ['Message:late'] }));
    expect(result).toMatchObject({ status: 'finished', content: 'Nobody answered in time.' });
    expect(waitedMs).toBeGreaterThanOrEqual(TWO_DAYS_S * 1000);
  });

  it("expires a pause with no timeout of its own at the run's pause timeout", async () => {
    const { result, waitedMs } = await runUnanswered(formCanvas({ exception_method: 'goto', exception_goto: ['Message:late'] }), {
      pauseTimeoutS: TWO_DAYS_S,
    });
    expect(result).toMatchObject({ status: 'finished', content: 'Nobody answered in time.' });
    expect(waitedMs).toBeGreaterThanOrEqual(TWO_DAYS_S * 1000);
  });
});
