/**
 * RAGFlow's 13 Go engine ingestion templates (test/fixtures/pipelines/go) through the
 * RAGFlow-compatible API: each saved as a pipeline canvas, named by a dataset's `pipeline_id`,
 * and run by the `ingestPipeline` workflow on a document of each file type it covers, against the
 * scripted model (pictures through its vision answer, audio and video through its
 * `/audio/transcriptions`). Every document ends DONE with its text in the stored chunks.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import { storeDb } from '../../../src/io/store/storeDb';
import { COVERS, docsByType, qaDocs, type TestDoc } from './goTemplateDocs';
import { createDataset, settled, upload, type Envelope } from './pipelineKit';

let h: Harness;
let docs: Record<string, TestDoc[]>;

const template = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/pipelines/go/ingestion_pipeline_${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

async function savePipeline(name: string, dsl: Record<string, unknown>): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', {
    body: { title: `go ${name} ${Math.random().toString(36).slice(2, 8)}`, dsl, canvas_category: 'dataflow_canvas' },
  });
  const body = res.body as Envelope<{ id: string }>;
  expect(body.code, res.text).toBe(0);
  return body.data.id;
}

interface Stored {
  content: string;
  important_keywords: string[];
  questions: string[];
  extra: Record<string, unknown>;
}

async function stored(documentId: string): Promise<Stored[]> {
  const r = await storeDb(h.store).query<Stored>('SELECT content, important_keywords, questions, extra FROM chunks WHERE document_id = $1 ORDER BY position', [
    documentId,
  ]);
  return r.rows;
}

/** Uploads the documents to a dataset using the pipeline and waits for them; each document's chunks by name. */
async function ingest(pipelineId: string, files: TestDoc[]): Promise<Map<string, Stored[]> & { ids?: string[] }> {
  const datasetId = await createDataset(h, pipelineId);
  const ids = await upload(h, datasetId, files);
  const settledDocs = await settled(h, datasetId, 300_000);
  for (const d of settledDocs) expect([d.name, d.run, d.progress_msg]).toEqual([d.name, 'DONE', expect.stringMatching(/^Done: \d+ chunks$/)]);
  const out: Map<string, Stored[]> & { ids?: string[] } = new Map<string, Stored[]>();
  for (const [i, f] of files.entries()) out.set(f.name, await stored(ids[i]!));
  out.ids = ids;
  return out;
}

beforeAll(async () => {
  h = await startHarness({ scriptedEmbeddings: true, env: { VISION_MODEL: 'scripted-vision', ASR_MODEL: 'scripted-asr' } });
  h.llm.imageDescription = () => 'A red bicycle leaning on a wall.';
  h.llm.when((call) => {
    const sys = String(call.body.messages.find((m) => m.role === 'system')?.content ?? '');
    const user = String([...call.body.messages].reverse().find((m) => m.role === 'user')?.content ?? '');
    if (sys.includes('keywords/phrases')) return { content: 'battery, storage' };
    if (sys.includes('propose the top')) return { content: 'Where to store the battery?' };
    if (sys.includes('faithful text summarizer')) return { content: `SUMMARY ${user.slice(0, 20)}` };
    if (sys.includes('Metadata extraction expert')) return { content: '{"topic": "batteries"}' };
    return undefined;
  });
  docs = await docsByType();
}, 180_000);
afterAll(async () => h?.close());

describe("RAGFlow's Go engine ingestion templates, end to end through the API", () => {
  for (const [name, types] of Object.entries(COVERS))
    it(`runs ${name} on ${types.join(', ')}`, { timeout: 420_000 }, async () => {
      const files = name === 'qa' ? await qaDocs() : types.flatMap((t) => docs[t]!);
      const chunks = await ingest(await savePipeline(name, template(name)), files);
      for (const f of files) {
        const mine = chunks.get(f.name)!;
        expect(mine.length, f.name).toBeGreaterThan(0);
        expect(mine.map((c) => c.content).join('\n'), f.name).toContain(f.expect);
        if (name === 'one' || name === 'picture' || name === 'audio') expect(mine, f.name).toHaveLength(1);
      }
      if (name === 'presentation')
        expect(chunks.get('deck.pptx')!.map((c) => c.content)).toEqual(['Quarterly review\nRevenue grew', 'Next steps\nHire two engineers']);
      if (name === 'one')
        expect(chunks.get('prices.csv')!, 'a .csv reaches the spreadsheet setup listing only xls and xlsx, as in the Go engine').toHaveLength(1);
    });

  it(
    'runs the general template with its Extractor sections switched on: keywords, questions, summary, metadata and built-in file_name',
    { timeout: 300_000 },
    async () => {
      const dsl = structuredClone(template('general')) as { dsl: { components: Record<string, { obj: { params: Record<string, unknown> } }> } };
      Object.assign(dsl.dsl.components['Extractor:AutoExtractDefault']!.obj.params, {
        keywords: { top_n: 3 },
        questions: { top_n: 1 },
        summary: { enabled: true },
        metadata: { enabled: true, metadata: [{ key: 'topic', type: 'string' }], built_in_metadata: [{ key: 'file_name' }] },
      });
      const pipelineId = await savePipeline('general-sections', dsl);
      const md = docs.markdown![0]!;
      const result = await ingest(pipelineId, [md]);
      const chunks = result.get(md.name)!;
      for (const c of chunks) {
        expect(c.important_keywords).toEqual(['battery', 'storage']);
        expect(c.questions).toEqual(['Where to store the battery?']);
        expect(c.extra.summary).toMatch(/^SUMMARY /);
        expect(c.extra.metadata).toEqual({ topic: 'batteries' });
      }
      const doc = await storeDb(h.store).query<{ meta_fields: Record<string, unknown> }>('SELECT meta_fields FROM documents WHERE id = $1', [result.ids![0]]);
      expect(doc.rows[0]!.meta_fields).toMatchObject({ topic: ['batteries'], file_name: 'battery.md' });
    },
  );
});
