/**
 * Memory with OpenSearch as the search backend (SEARCH_BACKEND=opensearch), against a real node
 * (test/helpers/opensearch.ts): an added turn is indexed there, memory search asks OpenSearch (and
 * the store keeps the enabled, unforgotten messages), disabling, forgetting and deleting take
 * messages out of the index, enabling puts them back.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkIndex } from '../../src/io/knowledge/chunkIndex';
import { memoryDatasetId } from '../../src/io/knowledge/memoryIndex';
import { openSearchIndex, type OpenSearchChunkIndex } from '../../src/io/knowledge/openSearchIndex';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { openSearchUnavailable, startOpenSearch, type StartedOpenSearch } from '../helpers/opensearch';

type Envelope<T = Record<string, unknown>> = { code: number; message: unknown; data: T };

const unavailable = openSearchUnavailable();
if (unavailable) console.warn(`[test/memory] memory on OpenSearch skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)('memory with the OpenSearch backend', () => {
  let node: StartedOpenSearch;
  let index: OpenSearchChunkIndex;
  let raw: Client;
  let h: Harness;
  const searches = { count: 0 };

  beforeAll(async () => {
    const started = await startOpenSearch();
    if ('skipped' in started) throw new Error(started.skipped);
    node = started;
    index = openSearchIndex({ url: node.url, indexPrefix: `memory-${randomUUID().slice(0, 8)}` });
    raw = new Client({ node: node.url });
    const counted: ChunkIndex = { ...index, candidates: (s) => (searches.count++, index.candidates(s)) };
    h = await startHarness({ scriptedEmbeddings: true, chunkIndex: counted });
  }, 600_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([index?.close(), raw?.close()]);
    await node?.stop();
  }, 60_000);

  /** Messages OpenSearch holds for a memory (the scripted embeddings have 64 dimensions). */
  const indexed = async (memoryId: string): Promise<number> => {
    const name = (await index.indexInfo(64))!.name;
    await raw.indices.refresh({ index: name });
    return (await raw.count({ index: name, body: { query: { term: { dataset_id: memoryDatasetId(memoryId) } } } })).body.count;
  };

  it('indexes, searches, disables, enables, forgets and deletes memory messages in OpenSearch', async () => {
    const memory = (await api(h, 'POST', '/api/v1/memories', { body: { name: 'Search notes', memory_type: ['raw'], embd_id: 'scripted-embed', llm_id: 'x' } }))
      .body as Envelope;
    const id = String(memory.data.id);
    const add = { memory_id: [id], agent_id: 'a', session_id: 's', user_input: 'Where do otters sleep?', agent_response: 'Otters sleep in holts.' };
    expect(((await api(h, 'POST', '/api/v1/messages', { body: add })).body as Envelope).code).toBe(0);
    expect(await indexed(id)).toBe(1);

    const search = async () =>
      ((await api(h, 'GET', `/api/v1/messages/search?memory_id=${id}&query=otters%20holts`)).body as Envelope<Array<{ message_id: number; content: string }>>)
        .data;
    const before = searches.count;
    const found = await search();
    expect(found.map((m) => m.content)).toEqual(['User Input: Where do otters sleep?\nAgent Response: Otters sleep in holts.']);
    expect(searches.count).toBe(before + 1);
    const messageId = found[0]!.message_id;

    await api(h, 'PUT', `/api/v1/messages/${id}:${messageId}`, { body: { status: false } });
    expect(await indexed(id)).toBe(0);
    expect(await search()).toEqual([]);
    await api(h, 'PUT', `/api/v1/messages/${id}:${messageId}`, { body: { status: true } });
    expect(await indexed(id)).toBe(1);
    expect(await search()).toHaveLength(1);
    await api(h, 'DELETE', `/api/v1/messages/${id}:${messageId}`);
    expect(await indexed(id)).toBe(0);
    expect(await search()).toEqual([]);

    await api(h, 'POST', '/api/v1/messages', { body: add });
    expect(await indexed(id)).toBe(1);
    await api(h, 'DELETE', `/api/v1/memories/${id}`);
    expect(await indexed(id)).toBe(0);
  });
});
