/**
 * What each peer of the peers benchmark (bench/peers.ts) implements, in its own child process
 * (bench/peers/child.ts): the same four shapes of work, written the way that peer's docs write
 * them. Every model call goes over HTTP through the `openai` package to the one scripted model the
 * parent runs, with the run's id in the prompt so the parent can count each run's calls.
 */
import OpenAI from 'openai';

export interface PeerContext {
  /** The scripted OpenAI-compatible model (…/v1), in the parent process. */
  modelUrl: string;
  /** This peer's own PostgreSQL database (peers that need one). */
  databaseUrl: string;
  /** A directory that outlives the process (file databases: SQLite, LibSQL, PGlite). */
  dataDir: string;
  /** The Temporal dev server (agent-canvas), in the parent process so that it outlives a killed worker. */
  temporalAddress: string;
  /** This peer's Temporal task queue (agent-canvas). */
  taskQueue: string;
}

export interface Peer {
  /** Begin → `nodes` model calls in a row → the answer; resolves with the answer. */
  chain(runId: string, nodes: number): Promise<void>;
  /** A model call per item, at most `concurrency` at once; resolves when every label is in. */
  map(runId: string, items: number, concurrency: number): Promise<void>;
  /** Starts a run that waits for a human; resolves once it is durably paused. */
  pause(runId: string): Promise<void>;
  /** Answers a paused run; resolves when the run has finished. */
  resume(runId: string): Promise<void>;
  /** Starts a `nodes`-call chain durably and returns without waiting (its process is then killed). */
  startDurably(runId: string, nodes: number): Promise<void>;
  /** In a new process after the kill: does what the peer's docs say to bring the run to its end, and waits for it. */
  recover(runId: string): Promise<void>;
  close(): Promise<void>;
}

/** Why a peer cannot do a shape (printed as "cannot: …" instead of a figure). */
export type Cannot = Partial<Record<'chain' | 'map' | 'pause' | 'crash', string>>;

export interface PeerModule {
  cannot?: Cannot;
  open(ctx: PeerContext): Promise<Peer>;
}

/** The client every peer's model calls go through (no retries: a failed call shows). */
export function modelClient(url: string): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'bench', maxRetries: 0 });
}

/** One streamed model call, as a node of any peer makes it; resolves with the text. */
export async function callModel(client: OpenAI, prompt: string): Promise<string> {
  const stream = await client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: prompt }], stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  return text;
}

/** The prompt of a chain's `step`-th call (the parent keys its counts and first-call times on it). */
export const stepPrompt = (runId: string, step: number) => `${runId} step ${step}`;
/** The prompt of a map's item. */
export const itemPrompt = (runId: string, item: number) => `${runId} item ${item}`;
