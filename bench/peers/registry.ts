/** The peers, by name, loaded on demand so that each child process holds its own peer's code alone. */
import type { PeerModule } from './contract';

export const PEERS = {
  'agent-canvas (PGlite)': async () => (await import('./agentCanvas')).agentCanvasPglite,
  'agent-canvas (PostgreSQL)': async () => (await import('./agentCanvas')).agentCanvasPostgres,
  'LangGraph (PostgreSQL, sync)': async () => (await import('./langgraph')).langgraphPostgres,
  'LangGraph (SQLite)': async () => (await import('./langgraph')).langgraphSqlite,
  'Mastra (LibSQL)': async () => (await import('./mastra')).mastraLibsql,
  'DBOS (PostgreSQL)': async () => (await import('./dbos')).dbosPostgres,
} satisfies Record<string, () => Promise<PeerModule>>;

/** The first is what the others' ratios are taken against. */
export type PeerName = keyof typeof PEERS;
