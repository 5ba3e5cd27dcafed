/**
 * A client that follows a run's events the way a resilient one does: over SSE from any of
 * several API processes, resuming with `Last-Event-ID` whenever the connection drops (the API was
 * killed, the store was down, or the client chose to hang up), until `data:[DONE]`. It keeps
 * every event id it was sent, so gaps and duplicates can be counted against the stored log.
 */
import pg from 'pg';
import { parseSse } from './appHarness';

export interface FollowedRun {
  runId: string;
  /** Event ids in the order they arrived, over every connection. */
  ids: string[];
  /** The events' JSON bodies, in the same order. */
  events: Array<Record<string, unknown>>;
  /** Connections after the first one (each sent `Last-Event-ID`). */
  resumes: number;
  /** Which API answered each connection. */
  servedBy: string[];
  /** Ids sent more than once, or after a later one. */
  duplicates: string[];
  done: boolean;
}

export interface FollowOptions {
  runId: string;
  /** The API addresses to use, in turn: connection n goes to `bases()[n % length]`. */
  bases: () => string[];
  headers: Record<string, string>;
  /** Hang up after this many events on a connection (forces resumes); default never. */
  hangUpAfter?: number;
  /** Give up after this long; the result then has `done: false`. */
  timeoutMs?: number;
  /** Called on each event (e.g. to answer a pause). */
  onEvent?: (e: Record<string, unknown>) => void;
}

function cursorOf(id: string): [number, number] {
  const [seq, sub] = id.split('-').map(Number);
  return [seq ?? -1, sub ?? -1];
}

function after(a: string, b: string): boolean {
  const [sa, ua] = cursorOf(a);
  const [sb, ub] = cursorOf(b);
  return sa > sb || (sa === sb && ua > ub);
}

/** One connection: resolves with whether it saw [DONE]; throws when it could not connect or broke. */
async function readOnce(url: string, headers: Record<string, string>, out: FollowedRun, opts: FollowOptions, deadline: number): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(1, deadline - Date.now()));
  let seenHere = 0;
  try {
    const res = await fetch(url, { headers, signal: controller.signal });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status}`);
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut + 2);
        buffer = buffer.slice(cut + 2);
        for (const m of parseSse(block)) {
          if (m.data === '[DONE]') return true;
          if (!m.id || !m.json) continue;
          const last = out.ids.at(-1);
          if (out.ids.includes(m.id) || (last && !after(m.id, last))) out.duplicates.push(m.id);
          out.ids.push(m.id);
          out.events.push(m.json);
          opts.onEvent?.(m.json);
          seenHere += 1;
          if (opts.hangUpAfter && seenHere >= opts.hangUpAfter) {
            controller.abort();
            return false;
          }
        }
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** Follows the run to its end, resuming after every drop; never throws for a dropped connection. */
export async function followRun(opts: FollowOptions): Promise<FollowedRun> {
  const out: FollowedRun = { runId: opts.runId, ids: [], events: [], resumes: 0, servedBy: [], duplicates: [], done: false };
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const bases = opts.bases();
    const base = bases[attempt % bases.length]!;
    const last = out.ids.at(-1);
    const headers = { ...opts.headers, ...(last ? { 'last-event-id': last } : {}) };
    if (out.servedBy.length > 0) out.resumes += 1;
    out.servedBy.push(base);
    try {
      if (await readOnce(`${base}/api/v1/runs/${opts.runId}/events`, headers, out, opts, deadline)) {
        out.done = true;
        return out;
      }
    } catch {
      // Refused, reset or 5xx: the process is down or the store is; try again shortly.
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return out;
}

export interface StoredEventRow {
  id: string;
  event: string;
  superseded: boolean;
}

/** The run's stored log, read straight from PostgreSQL. */
export async function storedLog(databaseUrl: string, runId: string): Promise<StoredEventRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ seq: number; sub: number; event: string; superseded: boolean }>(
      'SELECT seq, sub, event, superseded FROM run_events WHERE run_id = $1 ORDER BY seq, sub',
      [runId],
    );
    return r.rows.map((row) => ({ id: `${row.seq}-${row.sub}`, event: row.event, superseded: row.superseded }));
  } finally {
    await client.end();
  }
}

/**
 * Stored events the follower never got. Superseded tokens (a retried model call hid them) and
 * the retry marker (sent only to a reader that got the hidden tokens) are not owed to a reader.
 */
export function gapsOf(followed: FollowedRun, log: StoredEventRow[]): string[] {
  const got = new Set(followed.ids);
  return log.filter((e) => !e.superseded && e.event !== 'message_retry' && !got.has(e.id)).map((e) => e.id);
}
