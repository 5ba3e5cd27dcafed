/**
 * The indexDocument activity on its own, in Temporal's MockActivityEnvironment: it heartbeats the
 * chunks done after each embedded batch, a retry resumes at the batch the last heartbeat reached,
 * and a missing document fails for good. A real store (PGlite) and the built-in local embedding.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeDeps } from '../../src/io/knowledge/deps';
import { createKnowledgeActivities } from '../../activities/knowledge';
import { silentLogger } from '../../src/io/log';
import { LOCAL_EMBEDDING_MODEL } from '../../src/io/text/localEmbedding';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';

let store: Store;
let datasetId: string;
const tenantId = 'tenant-index-activity';
/** Many short paragraphs: with 16-token chunks, more than one embedding batch (32 chunks). */
const text = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} tells how durable workflows resume after a crash, step ${i}.`).join('\n\n');

beforeAll(async () => {
  store = await openStore({});
  await store.tenants.ensure(tenantId, 'index activity tests');
  const dataset = await store.knowledge.datasets.create({
    tenantId,
    name: `manuals ${Date.now()}`,
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    chunkMethod: 'naive',
    parserConfig: { chunk_token_num: 16 },
  });
  datasetId = dataset.id;
});

afterAll(async () => {
  await store?.close();
});

function activities() {
  const deps = knowledgeDeps(store, {});
  return createKnowledgeActivities({ ...deps, log: silentLogger });
}

async function newDocument() {
  return store.knowledge.documents.create({ tenantId, datasetId, name: 'manual.txt', type: 'txt', content: new TextEncoder().encode(text) });
}

describe('the indexDocument activity', () => {
  it('heartbeats the chunks done after each embedded batch', async () => {
    const doc = await newDocument();
    const env = new MockActivityEnvironment({ attempt: 1 });
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const { indexDocument } = activities();
    const result: Awaited<ReturnType<typeof indexDocument>> = await env.run(indexDocument, { tenantId, documentId: doc.id });
    expect(result.chunks).toBeGreaterThan(32);
    expect(beats).toEqual([32, result.chunks]);
    expect(await store.knowledge.documents.get(tenantId, doc.id)).toMatchObject({ run: 'DONE', chunk_count: result.chunks });
  });

  it('resumes a retry at the batch the last heartbeat reached', async () => {
    const doc = await newDocument();
    const beats: unknown[] = [];
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: 32 });
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const { indexDocument } = activities();
    const result: Awaited<ReturnType<typeof indexDocument>> = await env.run(indexDocument, { tenantId, documentId: doc.id });
    // Only the second batch ran: one heartbeat, at the end.
    expect(beats).toEqual([result.chunks]);
  });

  it('fails a document that no longer exists as NOT_FOUND, not retried', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 });
    const err = await env.run(activities().indexDocument, { tenantId, documentId: 'no-such-document' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'NOT_FOUND', nonRetryable: true });
  });
});
