/**
 * One pipeline, two search backends: RAGFlow's chunk_summary template over the same Markdown
 * with the store as the search backend (on PostgreSQL) and with OpenSearch (a real node). The
 * stored chunks are the same (text, extracted summary, keywords), Retrieval answers the same
 * chunks, and on OpenSearch a re-parse flips generations atomically: a search polled throughout
 * always finds the document's chunks of exactly one generation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchIndex, type OpenSearchChunkIndex } from '../../../src/io/knowledge/openSearchIndex';
import { generationOf } from '../../../src/io/knowledge/openSearchGenerations';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import { openSearchUnavailable, startOpenSearch, type StartedOpenSearch } from '../../helpers/opensearch';
import { startPostgres } from '../../helpers/postgres';
import { answerExtractors, createDataset, createPipeline, retrieve, settled, upload, type Envelope } from './pipelineKit';
import { storeDb } from '../../../src/io/store/storeDb';

const MARKDOWN = Array.from({ length: 10 }, (_, i) => `## Valve ${i}\n\nValve ${i} of the coolant pump is checked every ${i + 2} weeks for leaks.`).join(
  '\n\n',
);
const QUESTION = 'how often is the coolant pump valve checked for leaks';

const unavailable = openSearchUnavailable();
const postgres = await startPostgres();
const skipped = unavailable ?? ('skipped' in postgres ? postgres.skipped : null);
if (skipped) console.warn(`[test/pipeline] OpenSearch vs PostgreSQL pipeline test skipped: ${skipped}`);
afterAll(async () => {
  if (!('skipped' in postgres)) await postgres.stop();
});

interface Side {
  h: Harness;
  datasetId: string;
  documentId: string;
}

async function ingest(h: Harness): Promise<Side> {
  answerExtractors(h.llm);
  const datasetId = await createDataset(h, await createPipeline(h, 'chunk_summary', 'pump pipeline'));
  const [documentId] = (await upload(h, datasetId, [{ name: 'pump.md', body: MARKDOWN }])) as [string];
  const [doc] = await settled(h, datasetId);
  expect(doc!.run, doc!.progress_msg).toBe('DONE');
  return { h, datasetId, documentId };
}

const storedChunks = async (s: Side) =>
  (
    await storeDb(s.h.store).query<{ content: string; summary: string; important_keywords: string[] }>(
      `SELECT content, extra->>'summary' AS summary, important_keywords FROM chunks WHERE document_id = $1 ORDER BY position`,
      [s.documentId],
    )
  ).rows;

describe.skipIf(skipped !== null)('the same pipeline on OpenSearch and on PostgreSQL search', () => {
  let node: StartedOpenSearch;
  let index: OpenSearchChunkIndex;
  let onPostgres: Side;
  let onOpenSearch: Side;

  beforeAll(async () => {
    const started = await startOpenSearch();
    if ('skipped' in started) throw new Error(started.skipped);
    node = started;
    index = openSearchIndex({ url: node.url, indexPrefix: `pipeline-${randomUUID().slice(0, 8)}` });
    const pg = await startHarness({ scriptedEmbeddings: true, databaseUrl: (postgres as { url: string }).url });
    const os = await startHarness({ scriptedEmbeddings: true, chunkIndex: index });
    [onPostgres, onOpenSearch] = await Promise.all([ingest(pg), ingest(os)]);
  }, 900_000);
  afterAll(async () => {
    await Promise.all([onPostgres?.h.close(), onOpenSearch?.h.close()]);
    await index?.close();
    await node?.stop();
  }, 120_000);

  it('stores the same chunks with the same extracted fields', async () => {
    const a = await storedChunks(onPostgres);
    expect(a.length).toBeGreaterThan(0);
    expect(a.every((c) => c.summary.startsWith('SUMMARY '))).toBe(true);
    expect(await storedChunks(onOpenSearch)).toEqual(a);
  });

  it('answers Retrieval with the same chunks', { timeout: 120_000 }, async () => {
    const a = await retrieve(onPostgres.h, onPostgres.datasetId, QUESTION);
    const b = await retrieve(onOpenSearch.h, onOpenSearch.datasetId, QUESTION);
    expect(a.length).toBeGreaterThan(0);
    expect(b.map((c) => c.content)).toEqual(a.map((c) => c.content));
  });

  it('re-parses on OpenSearch with one generation searchable at every moment', { timeout: 300_000 }, async () => {
    const { h, datasetId, documentId } = onOpenSearch;
    // Retrieval through the API (the OpenSearch backend), with every chunk of the document in reach.
    const search = async () => {
      const res = await api(h, 'POST', '/api/v1/retrieval', {
        body: { question: QUESTION, dataset_ids: [datasetId], similarity_threshold: 0, top_k: 1000, page_size: 100 },
      });
      const hits = (res.body as Envelope<{ chunks: Array<{ id: string; document_id: string }> }>).data.chunks;
      return new Set(hits.filter((x) => x.document_id === documentId).map((x) => generationOf({ id: x.id, documentId: x.document_id })));
    };
    const before = await search();
    expect(before.size).toBe(1);
    const seen: Array<Set<string | null>> = [];
    let polling = true;
    const poll = (async () => {
      while (polling) seen.push(await search());
    })();
    const res = await api(h, 'POST', `/api/v1/datasets/${datasetId}/chunks`, { body: { document_ids: [documentId] } });
    expect((res.body as Envelope).code).toBe(0);
    const [doc] = await settled(h, datasetId);
    polling = false;
    await poll;
    expect(doc!.run).toBe('DONE');
    const after = await search();
    expect(after.size).toBe(1);
    expect([...after][0]).not.toBe([...before][0]);
    expect(seen.filter((g) => g.size !== 1)).toEqual([]);
  });
});
