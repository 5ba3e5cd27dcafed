/**
 * Knowledge over HTTP with OpenSearch as the search backend (SEARCH_BACKEND=opensearch), against
 * a real node (test/helpers/opensearch.ts): the same upload → index → retrieve behaviour as
 * test/api/knowledge.test.ts — documents indexed by the Temporal workflow land in OpenSearch, the
 * retrieval test and a canvas's Retrieval search it, the citation reaches `message_end.reference`
 * — and deleting documents and datasets through the API removes their chunks from it.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkIndex } from '../../src/io/knowledge/chunkIndex';
import { openSearchIndex, type OpenSearchChunkIndex } from '../../src/io/knowledge/openSearchIndex';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { openSearchUnavailable, startOpenSearch, type StartedOpenSearch } from '../helpers/opensearch';

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

const unavailable = openSearchUnavailable();
if (unavailable) console.warn(`[test/api] OpenSearch knowledge tests skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)('knowledge with the OpenSearch backend', () => {
  let node: StartedOpenSearch;
  let index: OpenSearchChunkIndex;
  let raw: Client;
  let h: Harness;
  let datasetId: string;
  const docs: Record<string, string> = {};
  const searches = { count: 0 };

  beforeAll(async () => {
    const started = await startOpenSearch();
    if ('skipped' in started) throw new Error(started.skipped);
    node = started;
    index = openSearchIndex({ url: node.url, indexPrefix: `api-${randomUUID().slice(0, 8)}` });
    raw = new Client({ node: node.url });
    // Counts searches, to show Retrieval asks OpenSearch and not the store.
    const counted: ChunkIndex = { ...index, candidates: (s) => (searches.count++, index.candidates(s)) };
    h = await startHarness({ scriptedEmbeddings: true, chunkIndex: counted });
  }, 600_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([index?.close(), raw?.close()]);
    await node?.stop();
  }, 60_000);

  /** Chunks OpenSearch holds for a filter (the scripted embeddings have 64 dimensions). */
  const indexed = async (filter: Record<string, string>): Promise<number> => {
    const name = (await index.indexInfo(64))!.name;
    const res = await raw.count({ index: name, body: { query: { term: filter } } });
    return res.body.count;
  };

  async function upload(files: Array<{ name: string; body: string }>): Promise<void> {
    const form = new FormData();
    for (const f of files) form.append('file', new Blob([new TextEncoder().encode(f.body)]), f.name);
    form.append('parse', 'true');
    const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
    const body = (await res.json()) as Envelope<Array<{ id: string; name: string }>>;
    expect(body.code, JSON.stringify(body)).toBe(0);
    for (const d of body.data) docs[d.name] = d.id;
  }

  async function waitIndexed(): Promise<Array<{ name: string; run: string; chunk_count: number }>> {
    for (const until = Date.now() + 60_000; ;) {
      const list = (await api(h, 'GET', `/api/v1/datasets/${datasetId}/documents?page_size=100`)).body as Envelope<{
        docs: Array<{ name: string; run: string; chunk_count: number }>;
      }>;
      if (list.data.docs.every((d) => d.run === 'DONE' || d.run === 'FAIL') || Date.now() > until) return list.data.docs;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('indexes uploaded documents into OpenSearch through the indexing workflow', async () => {
    const created = (await api(h, 'POST', '/api/v1/datasets', { body: { name: `manuals ${Date.now()}`, parser_config: { chunk_token_num: 64 } } }))
      .body as Envelope<{ id: string }>;
    expect(created.code).toBe(0);
    datasetId = created.data.id;
    await upload([
      { name: 'refunds.txt', body: 'Refunds reach the customer account within five business days. Shipping fees are not refunded.' },
      {
        name: 'guide.md',
        body: '# Setup Guide\n\n## Installing\n\nRun the installer and accept the license.\n\n## Resetting\n\nHold the power button for ten seconds to reset the device.',
      },
      { name: 'warranty.html', body: '<html><body><h1>Warranty</h1><p>The warranty covers <b>two years</b> of manufacturing defects.</p></body></html>' },
    ]);
    const done = await waitIndexed();
    expect(done.map((d) => [d.name, d.run]).sort()).toEqual([
      ['guide.md', 'DONE'],
      ['refunds.txt', 'DONE'],
      ['warranty.html', 'DONE'],
    ]);
    // Every chunk the store holds is in OpenSearch too, searchable as soon as the document is DONE.
    expect(await indexed({ dataset_id: datasetId })).toBe(done.reduce((n, d) => n + d.chunk_count, 0));
    expect(await indexed({ document_id: docs['guide.md']! })).toBe(2);
  });

  it('answers the retrieval test from OpenSearch with the right chunk first', async () => {
    const before = searches.count;
    const r = (
      await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'how do I reset the device?', dataset_ids: [datasetId], similarity_threshold: 0.1 } })
    ).body as Envelope<{ chunks: Array<{ content: string; document_id: string }> }>;
    expect(r.code).toBe(0);
    expect(r.data.chunks[0]).toMatchObject({ document_id: docs['guide.md'], content: expect.stringContaining('power button') });
    expect(searches.count).toBe(before + 1);
    const foreign = (await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'reset', dataset_ids: [datasetId] }, key: h.otherKey })).body as Envelope;
    expect(foreign.code).toBe(102);
  });

  it('runs a Retrieval → LLM canvas whose answer cites the chunk in message_end.reference', async () => {
    h.llm.whenPromptIncludes('MARK-os', (call) => {
      const system = String(call.body.messages[0]!.content);
      const id = /ID: (\d+)\n├── Title: refunds\.txt/.exec(system)?.[1];
      return { content: `Five business days [ID:${id}].` };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Retrieval:kb'] },
      'Retrieval:kb': { name: 'Retrieval', params: { dataset_ids: [datasetId], top_n: 3, similarity_threshold: 0.1 }, downstream: ['LLM:answer'] },
      'LLM:answer': {
        name: 'LLM',
        params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-os Answer from:\n{Retrieval:kb@formalized_content}' },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{LLM:answer@content}'] } },
    });
    const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `os canvas ${Date.now()}`, dsl: canvas } })).body as Envelope<{ id: string }>;
    const before = searches.count;
    const res = await api(h, 'POST', '/api/v1/agents/chat/completions', {
      body: { agent_id: agent.data.id, query: 'how long do refunds take?', stream: true },
    });
    const events = parseSse(res.text)
      .filter((m) => m.json)
      .map((m) => m.json!);
    expect(events.at(-1)!.event).toBe('workflow_finished');
    expect(searches.count).toBeGreaterThan(before);
    const answer = events
      .filter((e) => e.event === 'message')
      .map((e) => (e.data as { content: string }).content)
      .join('');
    const cited = /\[ID:(\d+)\]/.exec(answer)![1]!;
    const end = events.find((e) => e.event === 'message_end')!.data as {
      reference: { chunks: Record<string, { document_id: string; content: string }>; doc_aggs: Record<string, unknown> };
    };
    expect(end.reference.chunks[cited]).toMatchObject({ document_id: docs['refunds.txt'], content: expect.stringContaining('five business days') });
    expect(Object.keys(end.reference.doc_aggs)).toContain('refunds.txt');
  });

  it('removes the chunks of deleted documents and datasets from OpenSearch', async () => {
    const del = (await api(h, 'DELETE', `/api/v1/datasets/${datasetId}/documents`, { body: { ids: [docs['guide.md']] } })).body as Envelope;
    expect(del.code).toBe(0);
    expect(await indexed({ document_id: docs['guide.md']! })).toBe(0);
    const r = (
      await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'how do I reset the device?', dataset_ids: [datasetId], similarity_threshold: 0 } })
    ).body as Envelope<{ chunks: Array<{ document_id: string }> }>;
    expect(r.data.chunks.map((c) => c.document_id)).not.toContain(docs['guide.md']);
    expect(await indexed({ dataset_id: datasetId })).toBeGreaterThan(0);

    expect(((await api(h, 'DELETE', '/api/v1/datasets', { body: { ids: [datasetId] } })).body as Envelope).code).toBe(0);
    expect(await indexed({ dataset_id: datasetId })).toBe(0);
  });
});
