/**
 * DBOS Transact peer: durable workflows of steps checkpointed in PostgreSQL
 * (`DBOS.registerWorkflow`, `DBOS.runStep`). A map enqueues a child workflow per item on a queue
 * whose `concurrency` bounds it (one at a time: a loop of steps in the workflow), a human pause is `DBOS.recv` answered with `DBOS.send` (the run
 * announces it waits with `DBOS.setEvent`), and after a crash `DBOS.launch()` recovers every
 * pending workflow by itself, from its last completed step (DBOS's programming guide).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { callModel, itemPrompt, modelClient, stepPrompt, type Peer, type PeerContext, type PeerModule } from './contract';

/** How long a paused run waits for its human (DBOS.recv's default is 60 s). */
const PAUSE_SECONDS = 24 * 3600;

export const dbosPostgres: PeerModule = {
  async open(ctx: PeerContext): Promise<Peer> {
    const client = modelClient(ctx.modelUrl);
    const chainWorkflow = DBOS.registerWorkflow(
      async (runId: string, nodes: number) => {
        let answer = '';
        for (let i = 0; i < nodes; i++) answer = await DBOS.runStep(() => callModel(client, stepPrompt(runId, i)), { name: `model${i}` });
        return `answer: ${answer}`;
      },
      { name: 'chain' },
    );
    const labelWorkflow = DBOS.registerWorkflow(
      async (runId: string, item: number) => DBOS.runStep(() => callModel(client, itemPrompt(runId, item)), { name: 'label' }),
      { name: 'label' },
    );
    const mapWorkflow = DBOS.registerWorkflow(
      async (runId: string, items: number, queueName: string | null) => {
        // One at a time is a loop of steps (a queue of concurrency 1 would wait a polling interval, 1 s, per item).
        if (queueName === null) {
          for (let item = 0; item < items; item++) await DBOS.runStep(() => callModel(client, itemPrompt(runId, item)), { name: 'label' });
          return items;
        }
        const handles = [];
        for (let item = 0; item < items; item++) handles.push(await DBOS.startWorkflow(labelWorkflow, { queueName })(runId, item));
        const labels: string[] = [];
        for (const handle of handles) labels.push(await handle.getResult());
        return labels.length;
      },
      { name: 'map' },
    );
    const approvalWorkflow = DBOS.registerWorkflow(
      async (runId: string) => {
        await DBOS.setEvent('paused', true);
        const approved = await DBOS.recv<boolean>('approve', { timeoutSeconds: PAUSE_SECONDS });
        return `${runId} approved: ${approved}`;
      },
      { name: 'approval' },
    );
    DBOS.setConfig({ name: 'agent-canvas-peers', systemDatabaseUrl: ctx.databaseUrl, applicationVersion: '0.1.0', logLevel: 'error' });
    await DBOS.launch();
    const queues = new Map<number, string>();
    const queueOf = async (concurrency: number) => {
      if (!queues.has(concurrency)) queues.set(concurrency, (await DBOS.registerQueue(`map${concurrency}`, { concurrency })).name);
      return queues.get(concurrency)!;
    };
    return {
      chain: async (runId, nodes) => void (await (await DBOS.startWorkflow(chainWorkflow, { workflowID: runId })(runId, nodes)).getResult()),
      map: async (runId, items, concurrency) => {
        const queueName = concurrency === 1 ? null : await queueOf(concurrency);
        const labels = await (await DBOS.startWorkflow(mapWorkflow, { workflowID: runId })(runId, items, queueName)).getResult();
        if (labels !== items) throw new Error(`the DBOS map ended with ${labels} of ${items} labels`);
      },
      pause: async (runId) => {
        await DBOS.startWorkflow(approvalWorkflow, { workflowID: runId })(runId);
        if (!(await DBOS.getEvent<boolean>(runId, 'paused', 120))) throw new Error(`DBOS run ${runId} did not pause`);
      },
      resume: async (runId) => {
        await DBOS.send(runId, true, 'approve');
        await DBOS.retrieveWorkflow(runId).getResult();
      },
      startDurably: async (runId, nodes) => void (await DBOS.startWorkflow(chainWorkflow, { workflowID: runId })(runId, nodes)),
      // DBOS.launch() (in open) has already recovered the run: wait for it.
      recover: async (runId) => void (await DBOS.retrieveWorkflow(runId).getResult()),
      close: () => DBOS.shutdown(),
    };
  },
};
