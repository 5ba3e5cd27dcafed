/**
 * Stopping a document's pipeline and parsing it again: a stop mid-pipeline (the Extractor waiting
 * on the model) ends the document CANCEL with its previous chunks still there and searchable; a
 * re-parse swaps the whole chunk set in one commit, so a reader polling during it sees exactly
 * the old chunks or exactly the new ones, never a mix and never none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import { answerExtractors, createDataset, createPipeline, documents, retrieve, settled, upload, type Envelope } from './pipelineKit';
import { storeDb } from '../../../src/io/store/storeDb';

const MARKDOWN = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\nParagraph ${i} explains how the gearbox model ${i} is serviced and oiled.`).join('\n\n');

let h: Harness;
/** While set, every model call waits for it (the Extractor stalls mid-step). */
let gate: Promise<unknown> | null = null;
beforeAll(async () => {
  h = await startHarness({ scriptedEmbeddings: true });
  h.llm.when(() => (gate ? { until: gate, then: { content: 'late summary' } } : undefined));
  answerExtractors(h.llm);
}, 120_000);
afterAll(async () => h?.close());

const chunkIds = async (documentId: string) =>
  (await storeDb(h.store).query<{ id: string }>('SELECT id FROM chunks WHERE document_id = $1 ORDER BY id', [documentId])).rows.map((r) => r.id);

async function parse(datasetId: string, documentId: string, method: 'POST' | 'DELETE'): Promise<void> {
  const res = await api(h, method, `/api/v1/datasets/${datasetId}/chunks`, { body: { document_ids: [documentId] } });
  expect((res.body as Envelope).code, res.text).toBe(0);
}

describe('stopping and re-parsing a pipeline document', () => {
  let datasetId: string;
  let documentId: string;
  let firstIds: string[];

  beforeAll(async () => {
    datasetId = await createDataset(h, await createPipeline(h, 'chunk_summary'));
    [documentId] = (await upload(h, datasetId, [{ name: 'gearbox.md', body: MARKDOWN }])) as [string];
    const [doc] = await settled(h, datasetId);
    expect(doc!.run).toBe('DONE');
    firstIds = await chunkIds(documentId);
    expect(firstIds.length).toBeGreaterThan(0);
  }, 240_000);

  it('ends the document CANCEL on stop and keeps its previous chunks searchable', { timeout: 240_000 }, async () => {
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const before = h.llm.calls.length;
    await parse(datasetId, documentId, 'POST');
    await h.llm.waitForCalls(before + 1, 120_000);
    const [running] = await documents(h, datasetId);
    expect(running!.run).toBe('RUNNING');
    await parse(datasetId, documentId, 'DELETE');
    const [stopped] = await settled(h, datasetId);
    gate = null;
    release();
    // The workflow's own CANCEL bookkeeping comes after the route's: wait for the run to close.
    await h.temporal.client.workflow
      .getHandle(`index-document-${documentId}`)
      .result()
      .catch(() => undefined);
    expect(stopped!.run).toBe('CANCEL');
    expect(stopped!.chunk_count).toBe(firstIds.length);
    expect(await chunkIds(documentId)).toEqual(firstIds);
    expect((await retrieve(h, datasetId, 'gearbox model serviced oiled')).map((c) => c.document_id)).toContain(documentId);
  });

  it('replaces the chunks in one commit: a reader sees the old set or the new set, never a mix or none', { timeout: 240_000 }, async () => {
    const old = (await chunkIds(documentId)).join(',');
    const seen = new Set<string>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        seen.add((await chunkIds(documentId)).join(','));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await parse(datasetId, documentId, 'POST');
    const [doc] = await settled(h, datasetId);
    polling = false;
    await poll;
    expect(doc!.run).toBe('DONE');
    const fresh = (await chunkIds(documentId)).join(',');
    expect(fresh).not.toBe(old); // a new generation of ids
    expect(fresh.split(',')).toHaveLength(firstIds.length);
    expect(seen.has(old)).toBe(true);
    expect([...seen].filter((s) => s !== old && s !== fresh)).toEqual([]);
  });
});
