/**
 * agent-canvas as a peer: its real canvases run by its real worker (server/boot/worker.ts, the
 * product's options and workflow cache) on the Temporal dev server the parent runs, started the
 * way the API starts them (launchRun), on PGlite (the default, in a data directory) or
 * PostgreSQL. A map is a Parallel Iteration with `max_concurrency`, a human pause a UserFillUp
 * answered with the submit-inputs update, and after a crash a new worker simply polls again:
 * Temporal retries the model call the dead worker held once its heartbeat times out.
 */
import { createHash } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { launchRun } from '../../api/services/runLauncher';
import { createWorker, drainWorker } from '../../server/boot/worker';
import { loadConfig } from '../../src/io/config';
import { llmSettingsFromEnv } from '../../src/io/llm/providers';
import { silentLogger } from '../../src/io/log';
import type { CanvasRecord } from '../../src/io/store/contract';
import { openStore } from '../../src/io/store/store';
import { dsl } from '../../test/helpers/canvasKit';
import { submitInputsUpdate, type CanvasRunResult } from '../../workflows/definitions';
import { root } from '../common';
import type { Peer, PeerContext, PeerModule } from './contract';

const CRASH_NODES = 5;

/** Begin → `nodes` LLM nodes → Message; each node's prompt names the run (the query) and its step. */
function chainDsl(nodes: number): Record<string, unknown> {
  const spec: Record<string, { name: string; params?: Record<string, unknown>; downstream?: string[] }> = { begin: { name: 'Begin', downstream: ['LLM:0'] } };
  for (let i = 0; i < nodes; i++)
    spec[`LLM:${i}`] = {
      name: 'LLM',
      params: { llm_id: 'bench@OpenAI', sys_prompt: `{sys.query} step ${i}` },
      downstream: [i + 1 < nodes ? `LLM:${i + 1}` : 'Message:answer'],
    };
  spec['Message:answer'] = { name: 'Message', params: { content: [`answer: {LLM:${nodes - 1}@content}`] } };
  return dsl(spec);
}

function mapDsl(concurrency: number): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: concurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
    'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'bench@OpenAI', sys_prompt: 'map item {IterationItem:item@item}' } },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });
}

const pauseDsl = dsl({
  begin: { name: 'Begin', downstream: ['UserFillUp:ok'] },
  'UserFillUp:ok': { name: 'UserFillUp', params: { tips: 'Approve?', inputs: { approved: { type: 'boolean' } } }, downstream: ['Message:m'] },
  'Message:m': { name: 'Message', params: { content: ['approved: {UserFillUp:ok@approved}'] } },
});

/** Our run id for a benchmark run (the store's ids are 32 hex digits): the same in the process that recovers it. */
const runIdOf = (label: string) => createHash('sha256').update(label).digest('hex').slice(0, 32);

function agentCanvasPeer(database: 'pglite' | 'postgres'): PeerModule {
  return {
    async open(ctx: PeerContext): Promise<Peer> {
      try {
        Runtime.install({ logger: new DefaultLogger('ERROR') });
      } catch {
        // installed already
      }
      // As `npm start` configures them (run settings, workflow cache, worker slots; docs/CONFIGURATION.md).
      const config = loadConfig(process.env, root);
      const store = await openStore(database === 'postgres' ? { databaseUrl: ctx.databaseUrl } : { dataDir: ctx.dataDir });
      await store.tenants.ensure('bench', 'bench');
      const llm = llmSettingsFromEnv({ LLM_BASE_URL: ctx.modelUrl, LLM_API_KEY: 'bench' });
      const { worker, connection: workerConnection } = await createWorker({
        address: ctx.temporalAddress,
        namespace: 'default',
        taskQueue: ctx.taskQueue,
        projectRoot: root,
        activities: { store, llm, log: silentLogger, env: {} },
        maxCachedWorkflows: config.workerMaxCachedWorkflows,
        capacity: config.workerCapacity,
        ...(config.workerWorkflowBundle ? { workflowBundlePath: config.workerWorkflowBundle } : {}),
      });
      const running = worker.run();
      // The API's client, on its own connection as `npm start` runs it.
      const connection = await Connection.connect({ address: ctx.temporalAddress });
      const client = new Client({ connection });
      const deps = { store, client, taskQueue: ctx.taskQueue, settings: config.runSettings };
      const canvases = new Map<string, Promise<CanvasRecord>>();
      const canvas = (key: string, body: () => Record<string, unknown>) => {
        if (!canvases.has(key)) canvases.set(key, store.canvases.create({ tenantId: 'bench', title: `peers ${key} ${Date.now()}`, dsl: body() }));
        return canvases.get(key)!;
      };
      const start = async (label: string, record: CanvasRecord, query: unknown) =>
        client.workflow.getHandle(
          (
            await launchRun(deps, {
              tenantId: 'bench',
              canvas: record,
              sessionId: null,
              query,
              inputs: null,
              files: [],
              userId: 'u',
              session: null,
              runId: runIdOf(label),
            })
          ).workflowId,
        );
      const finish = async (handle: { result(): Promise<unknown> }, what: string) => {
        const result = (await handle.result()) as CanvasRunResult;
        if (result.status !== 'finished') throw new Error(`agent-canvas ${what} ended ${result.status}: ${result.error}`);
        return result;
      };
      const handleOf = async (label: string) => {
        const run = await store.runs.getById(runIdOf(label));
        if (!run) throw new Error(`no agent-canvas run ${label}`);
        return client.workflow.getHandle(run.workflow_id);
      };
      return {
        chain: async (label, nodes) => void (await finish(await start(label, await canvas(`chain${nodes}`, () => chainDsl(nodes)), label), 'chain')),
        map: async (label, items, concurrency) => {
          const record = await canvas(`map${concurrency}`, () => mapDsl(concurrency));
          const result = await finish(
            await start(
              label,
              record,
              Array.from({ length: items }, (_, i) => i),
            ),
            'map',
          );
          const labels = JSON.parse(result.content) as string[];
          if (labels.length !== items) throw new Error(`the agent-canvas map ended with ${labels.length} of ${items} labels`);
        },
        pause: async (label) => {
          await start(label, await canvas('pause', () => pauseDsl), '');
          while ((await store.runs.getById(runIdOf(label)))?.status !== 'paused') await new Promise((r) => setTimeout(r, 20));
        },
        resume: async (label) => {
          const handle = await handleOf(label);
          await handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: { approved: true } }] });
          await finish(handle, 'resumed run');
        },
        startDurably: async (label, nodes) => void (await start(label, await canvas(`chain${nodes}`, () => chainDsl(nodes)), label)),
        // The worker polling (open) is all a restart takes: wait for the run's end.
        recover: async (label) => void (await finish(await handleOf(label), `recovered run (${CRASH_NODES} nodes)`)),
        close: async () => {
          await drainWorker(worker, running);
          await connection.close();
          await workerConnection.close();
          await store.close();
        },
      };
    },
  };
}

export const agentCanvasPglite = agentCanvasPeer('pglite');
export const agentCanvasPostgres = agentCanvasPeer('postgres');
