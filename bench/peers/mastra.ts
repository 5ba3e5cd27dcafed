/**
 * Mastra peer (0.24, the last line that runs on Node 20; 1.x needs Node ≥ 22.13): workflows of
 * `createStep`s composed with `createWorkflow`, on LibSQL storage in a file (the storage Mastra's
 * project template configures). A map is `.foreach(step, { concurrency })`, a human pause a step
 * that `suspend()`s and is answered with `run.resume()`, and after a crash the run is restarted
 * from its last active step with `run.restart()` (Mastra's "Run.restart()" reference).
 */
import path from 'node:path';
import { Mastra } from '@mastra/core';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { LibSQLStore } from '@mastra/libsql';
import type OpenAI from 'openai';
import { z } from 'zod';
import { callModel, itemPrompt, modelClient, stepPrompt, type Peer, type PeerContext, type PeerModule } from './contract';

const Carried = z.object({ runId: z.string(), answer: z.string() });
const CRASH_NODES = 5;

function chainWorkflow(client: OpenAI, nodes: number) {
  const steps = Array.from({ length: nodes }, (_, i) =>
    createStep({
      id: `model${i}`,
      inputSchema: Carried,
      outputSchema: Carried,
      execute: async ({ inputData }) => ({ runId: inputData.runId, answer: await callModel(client, stepPrompt(inputData.runId, i)) }),
    }),
  );
  const respond = createStep({
    id: 'respond',
    inputSchema: Carried,
    outputSchema: Carried,
    execute: async ({ inputData }) => ({ ...inputData, answer: `answer: ${inputData.answer}` }),
  });
  const workflow = createWorkflow({ id: `chain${nodes}`, inputSchema: Carried, outputSchema: Carried });
  for (const step of steps) workflow.then(step);
  return workflow.then(respond).commit();
}

function mapWorkflow(client: OpenAI, concurrency: number) {
  const Item = z.object({ runId: z.string(), item: z.number() });
  const toItems = createStep({
    id: 'items',
    inputSchema: z.object({ runId: z.string(), items: z.array(z.number()) }),
    outputSchema: z.array(Item),
    execute: async ({ inputData }) => inputData.items.map((item) => ({ runId: inputData.runId, item })),
  });
  const label = createStep({
    id: 'label',
    inputSchema: Item,
    outputSchema: z.object({ label: z.string() }),
    execute: async ({ inputData }) => ({ label: await callModel(client, itemPrompt(inputData.runId, inputData.item)) }),
  });
  const respond = createStep({
    id: 'respond',
    inputSchema: z.array(z.object({ label: z.string() })),
    outputSchema: z.object({ labels: z.number() }),
    execute: async ({ inputData }) => ({ labels: inputData.length }),
  });
  return createWorkflow({ id: `map${concurrency}`, inputSchema: toItems.inputSchema, outputSchema: respond.outputSchema })
    .then(toItems)
    .foreach(label, { concurrency })
    .then(respond)
    .commit();
}

function pauseWorkflow() {
  const approve = createStep({
    id: 'approve',
    inputSchema: z.object({ runId: z.string() }),
    outputSchema: z.object({ approved: z.boolean() }),
    resumeSchema: z.object({ approved: z.boolean() }),
    suspendSchema: z.object({ tips: z.string() }),
    execute: async ({ resumeData, suspend }) => {
      if (!resumeData) return (await suspend({ tips: 'Approve?' })) as never;
      return { approved: resumeData.approved };
    },
  });
  const respond = createStep({
    id: 'respond',
    inputSchema: z.object({ approved: z.boolean() }),
    outputSchema: z.object({ answer: z.string() }),
    execute: async ({ inputData }) => ({ answer: `approved: ${inputData.approved}` }),
  });
  return createWorkflow({ id: 'pause', inputSchema: approve.inputSchema, outputSchema: respond.outputSchema }).then(approve).then(respond).commit();
}

function expect(status: string, wanted: string, what: string): void {
  if (status !== wanted) throw new Error(`Mastra ${what} ended ${status}, not ${wanted}`);
}

export const mastraLibsql: PeerModule = {
  async open(ctx: PeerContext): Promise<Peer> {
    const client = modelClient(ctx.modelUrl);
    const mastra = new Mastra({
      workflows: {
        chain1: chainWorkflow(client, 1),
        chain5: chainWorkflow(client, 5),
        map1: mapWorkflow(client, 1),
        map32: mapWorkflow(client, 32),
        pause: pauseWorkflow(),
      },
      storage: new LibSQLStore({ url: `file:${path.join(ctx.dataDir, 'mastra.db')}` }),
      logger: false,
    });
    const chain = (nodes: number) => mastra.getWorkflow(nodes === 1 ? 'chain1' : 'chain5');
    return {
      chain: async (runId, nodes) => {
        const run = await chain(nodes).createRunAsync({ runId });
        expect((await run.start({ inputData: { runId, answer: '' } })).status, 'success', 'chain');
      },
      map: async (runId, items, concurrency) => {
        const workflow = concurrency === 1 ? mastra.getWorkflow('map1') : concurrency === 32 ? mastra.getWorkflow('map32') : null;
        if (!workflow) throw new Error(`no Mastra map workflow of concurrency ${concurrency}`);
        const run = await workflow.createRunAsync({ runId });
        const result = await run.start({ inputData: { runId, items: Array.from({ length: items }, (_, i) => i) } });
        expect(result.status, 'success', 'map');
        if (result.status === 'success' && result.result.labels !== items) throw new Error(`Mastra map ended with ${result.result.labels} of ${items} labels`);
      },
      pause: async (runId) => {
        const run = await mastra.getWorkflow('pause').createRunAsync({ runId });
        expect((await run.start({ inputData: { runId } })).status, 'suspended', 'pause');
      },
      resume: async (runId) => {
        const run = await mastra.getWorkflow('pause').createRunAsync({ runId });
        expect((await run.resume({ step: 'approve', resumeData: { approved: true } })).status, 'success', 'resume');
      },
      startDurably: async (runId, nodes) => {
        const run = await chain(nodes).createRunAsync({ runId });
        void run.start({ inputData: { runId, answer: '' } }).catch(() => {});
      },
      recover: async (runId) => {
        const run = await chain(CRASH_NODES).createRunAsync({ runId });
        expect((await run.restart()).status, 'success', 'restarted run');
      },
      close: async () => {},
    };
  },
};
