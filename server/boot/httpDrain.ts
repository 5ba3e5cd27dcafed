/**
 * Closing the HTTP server politely. Fastify's close() stops accepting connections and waits for
 * the open requests, but an SSE stream (a run's events, a streamed completion) stays open until
 * its run ends, so close() alone would wait out the whole shutdown bound. This ends every open
 * stream the way a finished one ends (a clean end of the response, without `[DONE]`): clients
 * reconnect with Last-Event-ID to another API process and lose nothing, since the events live
 * in the store.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Tracks the open responses of `app`; call before it listens. Returns the polite close (ends open streams, then closes). */
export function politeClose(app: FastifyInstance): () => Promise<void> {
  const open = new Set<ServerResponse>();
  app.addHook('onRequest', async (_request, reply) => {
    const response = reply.raw;
    open.add(response);
    response.once('close', () => open.delete(response));
  });
  return async () => {
    const closing = app.close();
    // A response whose head went out but whose body has not ended is a stream (ordinary replies
    // send both at once). Its content type cannot be checked: writeHead() headers bypass getHeader().
    for (const response of open) if (response.headersSent && !response.writableEnded) response.end();
    await closing;
  };
}
