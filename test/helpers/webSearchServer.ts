/**
 * A local stand-in for Tavily's HTTP API (POST /search, /extract), speaking its protocol: tests
 * point TAVILY_BASE_URL at it. It records every request and can hold requests open.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebSearchCall {
  path: string;
  body: Record<string, unknown>;
  authorization: string | undefined;
  aborted: boolean;
}

export interface WebSearchServer {
  url: string;
  calls: WebSearchCall[];
  /** Requests wait for this before answering (set to hold them). */
  gate: Promise<unknown> | null;
  /** Resolves when `n` requests have arrived. */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function searchResults(query: string, padTo: number): Record<string, unknown> {
  const content = (i: number) => `Finding ${i} about ${query}.`.padEnd(padTo, ' lorem ipsum');
  return {
    query,
    results: [1, 2].map((i) => ({
      title: `${query} — source ${i}`,
      url: `https://example.test/${encodeURIComponent(query)}/${i}`,
      content: content(i),
      score: 1 - i / 10,
    })),
  };
}

/** `contentChars`: length of each result's content (benchmarks use realistic sizes). */
export async function startWebSearchServer(opts: { contentChars?: number } = {}): Promise<WebSearchServer> {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const ws: WebSearchServer = {
    url: '',
    calls: [],
    gate: null,
    waitForCalls(n, timeoutMs = 30_000) {
      if (ws.calls.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`fewer than ${n} web search calls arrived`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  const http: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
      const call: WebSearchCall = { path: req.url ?? '', body, authorization: req.headers.authorization, aborted: false };
      ws.calls.push(call);
      for (const w of waiters.filter((w) => ws.calls.length >= w.n)) w.resolve();
      res.on('close', () => {
        if (!res.writableEnded) call.aborted = true;
      });
      void (async () => {
        if (ws.gate) await ws.gate;
        if (res.destroyed) return;
        if (!call.authorization)
          return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":{"error":"Unauthorized: missing or invalid API key."}}');
        if (req.url === '/search')
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(searchResults(String(body.query ?? ''), opts.contentChars ?? 0)));
        if (req.url === '/extract') {
          const urls = Array.isArray(body.urls) ? body.urls.map(String) : [];
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ results: urls.map((u) => ({ url: u, raw_content: `Full text of ${u}.` })), failed_results: [] }));
        }
        res.writeHead(404).end();
      })();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  ws.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return ws;
}
