/**
 * What a chaos run stands on, all on loopback: a Temporal dev server (or TEMPORAL_ADDRESS), a
 * throwaway PostgreSQL (Debian's binaries), the scripted model and the web search stand-in, and
 * the scaled-out cluster (2 workers, 2 API processes by default) on top of them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectOrStartTemporal, type DevServer } from '../../src/io/temporal/devServer';
import { startCluster, type Cluster } from '../../test/helpers/cluster';
import { scriptClusterModel } from '../../test/helpers/clusterCanvases';
import { startPostgres, type StartedPostgres } from '../../test/helpers/postgres';
import { startScriptedLlm, type ScriptedLlm } from '../../test/helpers/scriptedLlm';
import { startWebSearchServer, type WebSearchServer } from '../../test/helpers/webSearchServer';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChaosEnvironment {
  temporalAddress: string;
  databaseUrl: string;
  llm: ScriptedLlm;
  web: WebSearchServer;
  cluster: Cluster;
  stop(): Promise<void>;
}

export async function startChaosEnvironment(opts: {
  /** An existing Temporal server (the tests' shared dev server); else TEMPORAL_ADDRESS, else a dev server of our own. */
  temporalAddress?: string;
  workers: number;
  apis: number;
  say: (line: string) => void;
}): Promise<ChaosEnvironment> {
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    let temporalAddress = opts.temporalAddress;
    if (!temporalAddress) {
      const server: DevServer = await connectOrStartTemporal({ projectRoot: root, persistent: false, ui: false, log: () => undefined });
      stops.push(() => server.stop());
      temporalAddress = server.address;
    }
    const pg = await startPostgres();
    if ('skipped' in pg) throw new Error(`chaos needs PostgreSQL: ${pg.skipped}`);
    stops.push(() => (pg as StartedPostgres).stop());
    const [llm, web] = await Promise.all([startScriptedLlm(), startWebSearchServer()]);
    stops.push(
      () => llm.stop(),
      () => web.stop(),
    );
    // The model answers promptly but streams, so kills land mid-stream too.
    scriptClusterModel(llm, { delayMs: 150 });
    opts.say(`temporal ${temporalAddress}, PostgreSQL ${new URL(pg.url).host}; starting ${opts.workers} workers and ${opts.apis} API processes…`);
    const cluster = await startCluster({
      temporalAddress,
      databaseUrl: pg.url,
      llmUrl: llm.url,
      workers: opts.workers,
      apis: opts.apis,
      extra: { TAVILY_BASE_URL: web.url },
    });
    stops.push(() => cluster.stop());
    return { temporalAddress, databaseUrl: pg.url, llm, web, cluster, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
