/**
 * The runs list's push: one SSE stream of the tenant's run starts, status changes and ends
 * (`GET /api/v1/runs/stream`). A dropped connection reconnects with Last-Event-ID and gets what it
 * missed. `onState` hears 'live', 'reconnecting' and, after three failed connections in a row,
 * 'failing' — the list then reloads slowly on a timer until the stream is live again.
 */
import { onUnauthorized, session } from './api.js';
import { readSse } from './sse.js';

export async function followRunChanges({ onChange, onState, signal }) {
  let lastId = null;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const headers = { authorization: `Bearer ${session.key()}`, ...(lastId ? { 'last-event-id': lastId } : {}) };
      const res = await fetch('/api/v1/runs/stream', { headers, signal });
      if (res.status === 401) return onUnauthorized.handler();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await readSse(res, (text, id) => {
        const msg = JSON.parse(text);
        if (msg.kind === 'hello') {
          failures = 0;
          onState('live', { resumed: lastId !== null });
          lastId ??= String(msg.last_id);
          return;
        }
        if (id) lastId = id;
        onChange(msg);
      });
    } catch {
      if (signal.aborted) return;
    }
    failures += 1;
    onState(failures >= 3 ? 'failing' : 'reconnecting');
    await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** failures, 10_000)));
  }
}
