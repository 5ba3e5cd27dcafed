/**
 * LangGraph.js peers: a StateGraph compiled with a checkpointer, one thread per run. On PostgreSQL
 * (PostgresSaver, durability "sync": each step's checkpoint is written before the next step
 * starts, the mode that survives a crash) and on SQLite (SqliteSaver on better-sqlite3, the
 * default durability). A map fans out with `Send` (maxConcurrency bounds it), a human pause is
 * `interrupt()` resumed with `Command({ resume })`, and after a crash the thread is resumed by
 * invoking it again with no input (LangGraph's durable-execution docs).
 */
import path from 'node:path';
import { Annotation, Command, END, interrupt, Send, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type OpenAI from 'openai';
import { callModel, itemPrompt, modelClient, stepPrompt, type Peer, type PeerContext, type PeerModule } from './contract';

const ChainState = Annotation.Root({ runId: Annotation<string>(), answer: Annotation<string>() });
const MapState = Annotation.Root({
  runId: Annotation<string>(),
  items: Annotation<number[]>(),
  labels: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
const PauseState = Annotation.Root({ runId: Annotation<string>(), approved: Annotation<boolean>(), answer: Annotation<string>() });

function chainGraph(client: OpenAI, nodes: number, checkpointer: BaseCheckpointSaver) {
  const names = Array.from({ length: nodes }, (_, i) => `model${i}`);
  const graph = new StateGraph(ChainState)
    .addNode(
      Object.fromEntries(names.map((name, i) => [name, async (s: typeof ChainState.State) => ({ answer: await callModel(client, stepPrompt(s.runId, i)) })])),
    )
    .addNode('respond', (s) => ({ answer: `answer: ${s.answer}` }));
  graph.addEdge(START, names[0]!);
  names.forEach((name, i) => graph.addEdge(name, names[i + 1] ?? 'respond'));
  graph.addEdge('respond', END);
  return graph.compile({ checkpointer });
}

function mapGraph(client: OpenAI, checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MapState)
    .addNode('label', async (s: { runId: string; item: number }) => ({ labels: [await callModel(client, itemPrompt(s.runId, s.item))] }))
    .addNode('respond', (s) => ({ labels: s.labels.length === s.items.length ? [] : ['incomplete'] }))
    .addConditionalEdges(START, (s) => s.items.map((item) => new Send('label', { runId: s.runId, item })))
    .addEdge('label', 'respond')
    .addEdge('respond', END)
    .compile({ checkpointer });
}

function pauseGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(PauseState)
    .addNode('approve', () => ({ approved: interrupt<string, boolean>('Approve?') }))
    .addNode('respond', (s) => ({ answer: `approved: ${s.approved}` }))
    .addEdge(START, 'approve')
    .addEdge('approve', 'respond')
    .addEdge('respond', END)
    .compile({ checkpointer });
}

function langgraphPeer(kind: 'postgres' | 'sqlite'): PeerModule {
  return {
    async open(ctx: PeerContext): Promise<Peer> {
      const client = modelClient(ctx.modelUrl);
      const checkpointer =
        kind === 'postgres' ? PostgresSaver.fromConnString(ctx.databaseUrl) : SqliteSaver.fromConnString(path.join(ctx.dataDir, 'checkpoints.db'));
      if (checkpointer instanceof PostgresSaver) await checkpointer.setup();
      const durability = kind === 'postgres' ? ('sync' as const) : undefined;
      const config = (runId: string, extra: { maxConcurrency?: number } = {}) => ({ configurable: { thread_id: runId }, durability, ...extra });
      const chains = new Map<number, ReturnType<typeof chainGraph>>();
      const chain = (nodes: number) => chains.get(nodes) ?? chains.set(nodes, chainGraph(client, nodes, checkpointer)).get(nodes)!;
      const map = mapGraph(client, checkpointer);
      const pause = pauseGraph(checkpointer);
      /** The chain a crashed run was started on (a recovering process compiles the same graph). */
      const CRASH_NODES = 5;
      return {
        chain: async (runId, nodes) => void (await chain(nodes).invoke({ runId }, config(runId))),
        map: async (runId, items, concurrency) => {
          const out = await map.invoke({ runId, items: Array.from({ length: items }, (_, i) => i) }, config(runId, { maxConcurrency: concurrency }));
          // Seen with LangGraph 1.7.3: at maxConcurrency 1 the runner ends the step once no task is
          // running, after the first Send; the graph then finishes without the other items.
          if (out.labels.length !== items)
            throw new Error(
              `cannot: maxConcurrency ${concurrency} ends the step after its first task, ${out.labels.length} of ${items} labels, no error (1.7.3)`,
            );
        },
        pause: async (runId) => void (await pause.invoke({ runId }, config(runId))),
        resume: async (runId) => void (await pause.invoke(new Command({ resume: true }), config(runId))),
        startDurably: async (runId, nodes) =>
          void chain(nodes)
            .invoke({ runId }, config(runId))
            .catch(() => {}),
        recover: async (runId) => void (await chain(CRASH_NODES).invoke(null, config(runId))),
        close: async () => {
          if (checkpointer instanceof PostgresSaver) await checkpointer.end();
          if (checkpointer instanceof SqliteSaver) checkpointer.db.close();
        },
      };
    },
  };
}

export const langgraphPostgres = langgraphPeer('postgres');
export const langgraphSqlite = langgraphPeer('sqlite');
