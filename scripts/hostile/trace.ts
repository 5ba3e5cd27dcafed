/**
 * For a run that was not exact: what the live reader got and what the log holds, compressed to
 * runs of alike events (`message×37 tok0…tok36 [attempt 1]`), and the model calls made for it.
 */
import pg from 'pg';
import type { RecordedCall } from '../../test/helpers/scriptedLlm';

interface Item {
  key: string;
  text: string;
}

function compress(items: Item[]): string {
  const out: Array<{ key: string; n: number; first: string; last: string }> = [];
  for (const it of items) {
    const prev = out.at(-1);
    if (prev && prev.key === it.key) {
      prev.n += 1;
      prev.last = it.text;
    } else out.push({ key: it.key, n: 1, first: it.text, last: it.text });
  }
  return out.map((g) => `${g.key}×${g.n}${g.first ? ` ${g.first.trim()}…${g.last.trim()}` : ''}`).join(' | ');
}

/** The live reader's events as `event[discard]` runs. */
export function liveTrace(events: Array<Record<string, unknown>>): string {
  return compress(
    events.map((e) => {
      const d = (e.data ?? {}) as Record<string, unknown>;
      return {
        key: e.event === 'message_retry' ? `message_retry(discard ${String(d.discard_chars)})` : String(e.event),
        text: e.event === 'message' ? String(d.content ?? '') : '',
      };
    }),
  );
}

/** The stored log's events with the attempt that wrote each and whether it is hidden. */
export async function storedTrace(databaseUrl: string, runId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ seq: number; sub: number; event: string; attempt: number | null; superseded: boolean; content: string | null }>(
      `SELECT seq, sub, event, attempt, superseded, data->>'content' AS content FROM run_events WHERE run_id = $1 ORDER BY seq, sub`,
      [runId],
    );
    return compress(
      r.rows.map((row) => ({
        key: `${row.seq}:${row.event}[a${row.attempt ?? '-'}${row.superseded ? ' hidden' : ''}]`,
        text: row.event === 'message' ? (row.content ?? '') : '',
      })),
    );
  } finally {
    await client.end();
  }
}

export function callsTrace(calls: RecordedCall[], since: number): string {
  return calls
    .map(
      (c) =>
        `+${((c.startedAt - since) / 1000).toFixed(1)}s→${c.endedAt === null ? 'open' : `+${((c.endedAt - since) / 1000).toFixed(1)}s`}${c.aborted ? ' aborted' : ''}`,
    )
    .join(', ');
}
