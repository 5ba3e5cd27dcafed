/**
 * Server-sent events, RAGFlow's framing (`data:{json}\n\n`) plus an `id:` line per event so
 * clients can resume with Last-Event-ID. The writer notices when the client goes away and
 * exposes it as an AbortSignal, so the work feeding the stream stops too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { trackSseClient } from '../src/io/metrics/registry';

export interface SseWriter {
  /** Aborts when the client disconnects. */
  readonly signal: AbortSignal;
  send(data: unknown, id?: string): void;
  /** `data:[DONE]`, then closes. */
  done(): void;
  close(): void;
}

const KEEPALIVE_MS = 15_000;

export function openSse(request: FastifyRequest, reply: FastifyReply, opts: { dataPrefix?: string } = {}): SseWriter {
  const prefix = opts.dataPrefix ?? 'data:';
  const controller = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  const untrack = trackSseClient();
  const keepalive = setInterval(() => {
    if (!raw.writableEnded) raw.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  const stop = () => {
    clearInterval(keepalive);
    untrack();
    controller.abort();
  };
  request.raw.on('close', stop);
  raw.on('close', stop);
  return {
    signal: controller.signal,
    send(data, id) {
      if (raw.writableEnded) return;
      const body = typeof data === 'string' ? data : JSON.stringify(data);
      raw.write(`${id !== undefined ? `id: ${id}\n` : ''}${prefix}${body}\n\n`);
    },
    done() {
      if (!raw.writableEnded) raw.end(`${prefix}[DONE]\n\n`);
      stop();
    },
    close() {
      if (!raw.writableEnded) raw.end();
      stop();
    },
  };
}
