/**
 * `GET /api/v1/runs/stream`: the tenant's run starts, status changes and ends as one SSE stream,
 * for the runs list instead of polling. Each change carries its feed number as the `id:` line; a
 * client that reconnects with `Last-Event-ID` (header or `last_event_id` query) gets exactly the
 * changes after it. Without one the stream starts at the present. The feed is the store's
 * (migration 18: a trigger on `runs` plus NOTIFY), so runs started through any API process show.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { RunChange } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { openSse } from '../sse';

/** Rows read per query; a longer backlog is sent in several reads. */
const BATCH = 200;
/** Reads again this often even without a wake-up: a NOTIFY lost while LISTEN reconnected is caught up. */
const RECHECK_MS = 30_000;

const StreamQuery = z.object({ last_event_id: z.string().optional() });

function parseCursor(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (!/^\d{1,15}$/.test(raw.trim())) {
    const message = 'must be the number of a change this stream sent';
    throw new AppError('BAD_REQUEST', `Last-Event-ID ${message}, got ${JSON.stringify(raw)}`, {
      problems: [{ path: '$.headers["last-event-id"]', message }],
    });
  }
  return Number(raw.trim());
}

export function changeView(c: RunChange): Record<string, unknown> {
  return { kind: c.kind, task_id: c.run_id, status: c.status, canvas_id: c.canvas_id, session_id: c.session_id, at: c.at };
}

export async function runStreamPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  // Endless streams would hold the server's close forever: they end first, and their clients
  // reconnect (with Last-Event-ID) to another process or to this one once it is back.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });
  app.get(
    '/api/v1/runs/stream',
    {
      schema: {
        tags: ['runs'],
        summary: 'The tenant’s run starts, status changes and ends as SSE, resumable with Last-Event-ID',
        description:
          'The first message is `{"kind":"hello","last_id":n}` (no id). Then one message per change: `{kind: "started"|"status"|"ended", task_id, status, canvas_id, session_id, at}` with `id:` its number.',
        querystring: StreamQuery,
      },
    },
    async (request, reply) => {
      const q = request.query as z.infer<typeof StreamQuery>;
      const requested = parseCursor((request.headers['last-event-id'] as string | undefined) ?? q.last_event_id);
      const tenantId = request.tenantId;
      let wake: (() => void) | null = null;
      let pending = false;
      const onChange = () => {
        pending = true;
        wake?.();
      };
      // Listening before the starting point is read: a change in between is read, not missed.
      const unsubscribe = await store.runChanges.subscribe(tenantId, onChange);
      let cursor: number;
      try {
        cursor = requested ?? (await store.runChanges.latest(tenantId));
      } catch (err) {
        unsubscribe();
        throw err;
      }
      const sse = openSse(request, reply);
      sse.signal.addEventListener('abort', () => wake?.(), { once: true });
      const end = () => sse.close();
      open.add(end);
      sse.send({ kind: 'hello', last_id: cursor });
      try {
        while (!sse.signal.aborted) {
          pending = false;
          const rows = await store.runChanges.after(tenantId, cursor, BATCH);
          for (const row of rows) {
            sse.send(changeView(row), String(row.id));
            cursor = row.id;
          }
          if (rows.length === BATCH || pending) continue;
          if (sse.signal.aborted) break;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, RECHECK_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      } catch (err) {
        request.log.warn({ err }, 'run changes stream ended by an error');
      } finally {
        open.delete(end);
        unsubscribe();
        sse.close();
      }
    },
  );
}
