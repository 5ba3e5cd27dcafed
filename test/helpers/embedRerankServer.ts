/**
 * A real HTTP peer for knowledge search: an OpenAI-compatible `/embeddings` endpoint and a
 * Jina/Cohere-shaped `/rerank` endpoint on 127.0.0.1, both reporting token usage, each able to
 * answer HTTP 500 to its next requests (a provider outage a retry gets past).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { localEmbedding } from '../../src/io/text/localEmbedding';
import { api, type Harness } from './appHarness';

export interface EmbedRerankServer {
  url: string;
  /** The bodies received, in order. */
  embeddings: Array<{ model: string; input: string[] }>;
  reranks: Array<{ model: string; query: string; documents: string[] }>;
  /** The next `n` embedding requests answer HTTP 500. */
  failEmbeddings(n: number): void;
  stop(): Promise<void>;
}

/** Tokens the endpoints report: per embedded text, and per rerank request. */
export const EMBED_TOKENS_PER_TEXT = 7;
export const RERANK_TOKENS = 42;

async function bodyOf<T>(req: IncomingMessage): Promise<T> {
  let raw = '';
  for await (const c of req) raw += (c as Buffer).toString('utf8');
  return JSON.parse(raw) as T;
}

const words = (s: string) => new Set(s.toLowerCase().match(/\p{L}+/gu) ?? []);

export async function startEmbedRerankServer(): Promise<EmbedRerankServer> {
  let failing = 0;
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const state: Omit<EmbedRerankServer, 'url' | 'stop'> = {
    embeddings: [],
    reranks: [],
    failEmbeddings: (n) => (failing = n),
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'POST' && req.url?.endsWith('/embeddings')) {
        const body = await bodyOf<{ model: string; input: string | string[] }>(req);
        const input = Array.isArray(body.input) ? body.input : [body.input];
        state.embeddings.push({ model: body.model, input });
        if (failing > 0) {
          failing -= 1;
          return json(res, 500, { error: { message: 'embedding backend restarting', type: 'server_error' } });
        }
        // The offline hashed embedding folded to 64 dimensions: search behaves as without the endpoint.
        const data = input.map((text, index) => {
          const full = localEmbedding(text);
          return {
            object: 'embedding',
            index,
            embedding: Array.from({ length: 64 }, (_, i) => full.filter((_, j) => j % 64 === i).reduce((a, b) => a + b, 0)),
          };
        });
        const tokens = input.length * EMBED_TOKENS_PER_TEXT;
        return json(res, 200, { object: 'list', model: body.model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
      }
      if (req.method === 'POST' && req.url?.endsWith('/rerank')) {
        const body = await bodyOf<{ model: string; query: string; documents: string[] }>(req);
        state.reranks.push(body);
        // Relevance: the share of the query's words a document has.
        const q = words(body.query);
        const results = body.documents.map((d, index) => {
          const w = words(d);
          return { index, relevance_score: q.size ? [...q].filter((x) => w.has(x)).length / q.size : 0 };
        });
        return json(res, 200, { model: body.model, results, usage: { total_tokens: RERANK_TOKENS } });
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A dataset of the tenant with one document holding `chunks` (added through the chunk route, which embeds each); its id. */
export async function seedDataset(h: Harness, chunks: string[]): Promise<string> {
  type Envelope<T> = { code: number; data: T };
  const created = (await api(h, 'POST', '/api/v1/datasets', { body: { name: `seeded ${Date.now()} ${Math.random()}` } })).body as Envelope<{ id: string }>;
  expect(created.code, JSON.stringify(created)).toBe(0);
  const datasetId = created.data.id;
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode('seeded')]), 'seeded.txt');
  form.append('parse', 'false');
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  const doc = ((await res.json()) as Envelope<Array<{ id: string }>>).data[0]!.id;
  for (const content of chunks) {
    const added = (await api(h, 'POST', `/api/v1/datasets/${datasetId}/documents/${doc}/chunks`, { body: { content } })).body as Envelope<unknown>;
    expect(added.code, JSON.stringify(added)).toBe(0);
  }
  return datasetId;
}
