/**
 * One worker on the dev server with the scripted model and the local stand-ins of RAGFlow's tool
 * services (test/helpers/toolServices.ts, a Tavily stand-in), plus the two things the tool
 * canvas tests do over and over: run a canvas to its end and read its events, and script the
 * model's replies for the calls that carry a marker.
 */
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import { expectEventsInMap } from './runEvents';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { startScriptedLlm, type RecordedCall, type Reply, type ScriptedLlm } from './scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from './temporal';
import { startToolServices, type ToolServices } from './toolServices';
import { startWebSearchServer, type WebSearchServer } from './webSearchServer';

export interface ToolCanvasHarness {
  store: Store;
  llm: ScriptedLlm;
  svc: ToolServices;
  run(title: string, canvas: Record<string, unknown>, query: string): Promise<ToolCanvasRun>;
  /** Scripts the model's replies (in order) for calls whose messages contain `marker`; returns the calls seen. */
  script(marker: string, replies: Reply[]): RecordedCall[];
  stop(): Promise<void>;
}

export interface ToolCanvasRun {
  result: CanvasRunResult;
  events: Awaited<ReturnType<Store['events']['list']>>;
  finished(id: string): { outputs: Record<string, unknown> } | undefined;
  reference: { chunks: Record<string, { url: string }> } | undefined;
  /** The workflow's history as JSON text (to check what travels through it). */
  history(): Promise<string>;
}

/** A tool call of a scripted model reply. */
export const toolCall = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

export async function startToolCanvasHarness(tenantId: string, env: Record<string, string> = {}): Promise<ToolCanvasHarness> {
  let store: Store | undefined, llm: ScriptedLlm | undefined, svc: ToolServices | undefined, tavily: WebSearchServer | undefined;
  let temporal: TemporalHandles | undefined, worker: RunningWorker | undefined;
  const stop = async () => {
    await worker?.stop();
    await Promise.all([temporal?.close(), llm?.stop(), svc?.stop(), tavily?.stop(), store?.close()]);
  };
  try {
    [store, llm, svc, tavily, temporal] = await Promise.all([
      openStore({}),
      startScriptedLlm(),
      startToolServices(),
      startWebSearchServer(),
      connectTemporal(),
    ]);
    await store.tenants.ensure(tenantId, `${tenantId} tests`);
    worker = await startWorker({
      nativeConnection: temporal.nativeConnection,
      store,
      llmBaseUrl: llm.url,
      env: { ...svc.env, TAVILY_BASE_URL: tavily.url, TAVILY_API_KEY: 'tvly-test', ...env },
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const [s, model, client] = [store, llm, temporal.client];
  const deps: LaunchDeps = { store: s, client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
  return {
    store: s,
    llm: model,
    svc,
    stop,
    async run(title, canvas, query) {
      const saved = await s.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
      const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
      const handle = client.workflow.getHandle(launched.workflowId);
      const result = (await handle.result()) as CanvasRunResult;
      const events = await s.events.list(launched.runId, null, 10_000);
      expectEventsInMap(events);
      return {
        result,
        events,
        finished: (id) =>
          events.find((e) => e.event === 'node_finished' && e.data.component_id === id)?.data as { outputs: Record<string, unknown> } | undefined,
        reference: events.find((e) => e.event === 'message_end')?.data.reference as ToolCanvasRun['reference'],
        history: async () => JSON.stringify(await handle.fetchHistory()),
      };
    },
    script(marker, replies) {
      const seen: RecordedCall[] = [];
      model.when((call) => {
        if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(marker))) return undefined;
        seen.push(call);
        return replies[seen.length - 1] ?? { content: `no more scripted replies for ${marker}` };
      });
      return seen;
    },
  };
}
