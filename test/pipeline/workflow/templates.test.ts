/**
 * RAGFlow's four pipeline templates (agent/templates/) through the RAGFlow-compatible API: saved
 * as pipeline canvases, named by a dataset's `pipeline_id`, and run by the `ingestPipeline`
 * workflow over a small Markdown file and a PDF against the scripted model. The chunks land in
 * the store with the fields the Extractors wrote, and Retrieval finds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../../helpers/appHarness';
import { textPdf } from '../../helpers/pdf';
import { answerExtractors, createDataset, createPipeline, retrieve, settled, template, TEMPLATES, upload, type Envelope } from './pipelineKit';
import { storeDb } from '../../../src/io/store/storeDb';

const MARKDOWN = [
  '# Battery care',
  '',
  'Lithium batteries last longest between twenty and eighty percent charge.',
  '',
  '## Storage',
  '',
  'Store the spare battery in a cool dry drawer away from sunlight.',
].join('\n');
const PDF = textPdf(['Warranty claims need the original receipt and the serial number.']);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ scriptedEmbeddings: true });
  answerExtractors(h.llm);
}, 120_000);
afterAll(async () => h?.close());

interface StoredChunk {
  content: string;
  important_keywords: string[];
  questions: string[];
  extra: Record<string, unknown>;
}

async function storedChunks(documentId: string): Promise<StoredChunk[]> {
  const r = await storeDb(h.store).query<StoredChunk>(
    'SELECT content, important_keywords, questions, extra FROM chunks WHERE document_id = $1 ORDER BY position',
    [documentId],
  );
  return r.rows;
}

describe('RAGFlow pipeline templates as durable workflows', () => {
  for (const name of TEMPLATES)
    it(`runs ${name} over Markdown and PDF: chunks with the extracted fields, found by Retrieval`, { timeout: 240_000 }, async () => {
      const pipelineId = await createPipeline(h, name);
      const datasetId = await createDataset(h, pipelineId);
      const [mdId, pdfId] = await upload(h, datasetId, [
        { name: 'battery.md', body: MARKDOWN },
        { name: 'warranty.pdf', body: PDF },
      ]);
      const docs = await settled(h, datasetId);
      for (const d of docs) expect([d.name, d.run, d.progress_msg]).toEqual([d.name, 'DONE', expect.stringMatching(/^Done: \d+ chunks$/)]);
      const md = await storedChunks(mdId!);
      const pdf = await storedChunks(pdfId!);
      expect(md.length).toBeGreaterThan(0);
      expect(pdf.length).toBeGreaterThan(0);
      expect(md.map((c) => c.content).join('\n')).toContain('cool dry drawer');
      expect(pdf.map((c) => c.content).join('\n')).toContain('original receipt');
      for (const c of [...md, ...pdf]) {
        if (name === 'compiler') continue; // no Extractor in this template
        expect(c.extra.summary).toMatch(/^SUMMARY /);
      }
      if (name === 'advanced_ingestion_pipeline')
        for (const c of [...md, ...pdf]) {
          expect(c.important_keywords).toContain('pipelinekeyword');
          expect(c.questions).toContain('Why pipelines?');
          expect(c.extra.metadata).toBeDefined();
        }
      const found = await retrieve(h, datasetId, 'where to store the spare battery drawer');
      expect(found.map((c) => c.document_id)).toContain(mdId);
      expect(found.find((c) => c.document_id === mdId)?.content).toContain('drawer');
      const foundPdf = await retrieve(h, datasetId, 'warranty receipt serial number');
      expect(foundPdf.map((c) => c.document_id)).toContain(pdfId);
    });

  it('shows a pipeline with the datasets that use it (RAGFlow get_agent), and versions each DSL update', async () => {
    const pipelineId = await createPipeline(h, 'title_chunker');
    const datasetId = await createDataset(h, pipelineId);
    const got = (await api(h, 'GET', `/api/v1/agents/${pipelineId}`)).body as Envelope<{ canvas_category: string; datasets: Array<{ id: string }> }>;
    expect(got.data.canvas_category).toBe('dataflow_canvas');
    expect(got.data.datasets.map((d) => d.id)).toEqual([datasetId]);
    const updated = await api(h, 'PUT', `/api/v1/agents/${pipelineId}`, { body: { dsl: template('chunk_summary') } });
    expect((updated.body as Envelope).code, updated.text).toBe(0);
    const versions = (await api(h, 'GET', `/api/v1/agents/${pipelineId}/versions`)).body as Envelope<unknown[]>;
    expect(versions.data).toHaveLength(2);
  });

  it('refuses a dataset naming an agent or an unknown pipeline', async () => {
    const agent = await api(h, 'POST', '/api/v1/agents', {
      body: { title: `agent ${Date.now()}`, dsl: { components: { begin: { obj: { component_name: 'Begin', params: {} }, downstream: [], upstream: [] } } } },
    });
    const agentId = (agent.body as Envelope<{ id: string }>).data.id;
    const refusedAgent = (await api(h, 'POST', '/api/v1/datasets', { body: { name: `x ${Date.now()}`, parse_type: 2, pipeline_id: agentId } }))
      .body as Envelope;
    expect(refusedAgent.code).toBe(102);
    expect(refusedAgent.message).toMatch(/pipeline_id: .* is an agent/);
    const unknown = (await api(h, 'POST', '/api/v1/datasets', { body: { name: `y ${Date.now()}`, parse_type: 2, pipeline_id: 'a'.repeat(32) } }))
      .body as Envelope;
    expect(unknown.code).toBe(102);
    expect(unknown.message).toMatch(/pipeline_id: no ingestion pipeline 'a{32}'/);
  });

  it('refuses an invalid pipeline DSL with the JSON path of the problem', async () => {
    const bad = structuredClone(template('chunk_summary')) as {
      dsl: { components: Record<string, { obj: { component_name: string } }> };
    };
    bad.dsl.components['Parser:HipSignsRhyme']!.obj.component_name = 'NoSuchParser';
    const res = await api(h, 'POST', '/api/v1/agents', { body: { title: `bad ${Date.now()}`, dsl: bad, canvas_category: 'dataflow_canvas' } });
    const body = res.body as Envelope;
    expect(body.code).toBe(101);
    expect(body.message).toContain('$.dsl.dsl.components["Parser:HipSignsRhyme"].obj.component_name');
  });
});
