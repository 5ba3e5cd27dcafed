/**
 * How many model streams one product worker (server/boot/worker.ts) carries at once. The SDK's
 * default of 100 activity slots made the 101st concurrent stream wait for one of the first 100 to
 * end; the product's worker takes more, and WORKER_MAX_ACTIVITIES sets the number.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { launchRun } from '../../api/services/runLauncher';
import { createWorker, WORKER_CAPACITY } from '../../server/boot/worker';
import { loadConfig } from '../../src/io/config';
import { silentLogger } from '../../src/io/log';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, type TemporalHandles } from '../helpers/temporal';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tenantId = 'tenant-capacity';
/** More than the SDK's default 100 activity slots. */
const STREAMS = 120;
const PROMPT = 'Hold the stream open.';

let store: Store;
let llm: ScriptedLlm;
let temporal: TemporalHandles;

beforeAll(async () => {
  [store, llm, temporal] = await Promise.all([openStore({}), startScriptedLlm(), connectTemporal()]);
  await store.tenants.ensure(tenantId, 'capacity');
});

afterAll(async () => {
  await Promise.all([temporal?.close(), llm?.stop(), store?.close()]);
});

/** Model calls of this file still streaming. */
const open = () => llm.calls.filter((c) => c.endedAt === null && JSON.stringify(c.body.messages).includes(PROMPT)).length;

describe('worker capacity', () => {
  it('reads WORKER_MAX_ACTIVITIES, WORKER_MAX_WORKFLOW_TASKS and WORKER_MAX_LOCAL_ACTIVITIES, naming a bad one', () => {
    const load = (env: Record<string, string>) => loadConfig(env, '/tmp/agent-canvas').workerCapacity;
    expect(load({})).toEqual({ activities: undefined, workflowTasks: undefined, localActivities: undefined });
    expect(load({ WORKER_MAX_ACTIVITIES: '2000', WORKER_MAX_WORKFLOW_TASKS: '80', WORKER_MAX_LOCAL_ACTIVITIES: '50' })).toEqual({
      activities: 2000,
      workflowTasks: 80,
      localActivities: 50,
    });
    expect(() => load({ WORKER_MAX_ACTIVITIES: 'many' })).toThrow(/WORKER_MAX_ACTIVITIES/);
    expect(() => load({ WORKER_MAX_WORKFLOW_TASKS: '1' })).toThrow(/WORKER_MAX_WORKFLOW_TASKS: must be at least 2/);
  });

  it(`streams ${STREAMS} model answers at once on one worker by default`, async () => {
    expect(WORKER_CAPACITY.activities).toBeGreaterThanOrEqual(STREAMS);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    llm.whenPromptIncludes(PROMPT, { until: released, then: { content: 'done' } });
    const taskQueue = `capacity-${randomUUID()}`;
    let worker: Worker | null = null;
    let running: Promise<void> | null = null;
    let connection: { close(): Promise<void> } | null = null;
    try {
      const created = await createWorker({
        address: inject('temporalAddress'),
        namespace: 'default',
        taskQueue,
        projectRoot,
        workflowBundlePath: inject('workflowBundlePath'),
        activities: { store, llm: llmSettingsFromEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' }), log: silentLogger, env: {} },
      });
      ({ worker, connection } = created);
      running = worker.run();
      const canvas = await store.canvases.create({
        tenantId,
        title: `capacity ${randomUUID()}`,
        dsl: dsl({
          begin: { name: 'Begin', downstream: ['LLM:hold'] },
          'LLM:hold': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: PROMPT }, downstream: ['Message:out'] },
          'Message:out': { name: 'Message', params: { content: ['{LLM:hold@content}'] } },
        }),
      });
      const deps = { store, client: temporal.client, taskQueue, settings: DEFAULT_RUN_SETTINGS };
      const runs = await Promise.all(
        Array.from({ length: STREAMS }, () =>
          launchRun(deps, { tenantId, canvas, sessionId: null, query: 'go', inputs: null, files: [], userId: 'u', session: null }),
        ),
      );
      const until = Date.now() + 180_000;
      let most = 0;
      while (most < STREAMS && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 250));
        most = Math.max(most, open());
      }
      console.log(`[worker capacity] ${most} of ${STREAMS} model streams open at once`);
      expect(most).toBe(STREAMS);
      release();
      await Promise.all(runs.map((r) => temporal.client.workflow.getHandle(r.workflowId).result()));
    } finally {
      release();
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => {});
      await connection?.close();
    }
  }, 300_000);
});
