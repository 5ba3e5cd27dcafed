/**
 * Knowledge over HTTP with RAGFlow's routes: a dataset, documents uploaded (txt, Markdown, HTML,
 * PDF) and indexed by a Temporal workflow with visible progress, the retrieval test, and a canvas
 * whose Retrieval feeds a cited answer — citations in `message_end.reference` of the stream, the
 * non-stream reply and the OpenAI-compatible reply. Embeddings come from the scripted server's
 * OpenAI-compatible `/embeddings` endpoint (a real HTTP peer). The suite runs on the embedded
 * store (PGlite, with pgvector) and on a real PostgreSQL server (without pgvector: the exact SQL
 * vector search), skipped with a message where PostgreSQL cannot start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, parseSse, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';
import { textPdf } from '../helpers/pdf';
import { startPostgres } from '../helpers/postgres';
import type { RecordedCall } from '../helpers/scriptedLlm';

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/api] knowledge on PostgreSQL skipped: ${postgres.skipped}`);
afterAll(async () => {
  if (!('skipped' in postgres)) await postgres.stop();
});
const stores = [
  { name: 'PGlite', databaseUrl: undefined, skipped: undefined },
  { name: 'PostgreSQL', databaseUrl: 'skipped' in postgres ? undefined : postgres.url, skipped: 'skipped' in postgres ? postgres.skipped : undefined },
];

let h: Harness;
let datasetId: string;
const docs: Record<string, string> = {};

type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T; total?: number };

async function upload(files: Array<{ name: string; body: Uint8Array | string }>, parse = true): Promise<Array<{ id: string; name: string; run: string }>> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([typeof f.body === 'string' ? new TextEncoder().encode(f.body) : f.body]), f.name);
  form.append('parse', String(parse));
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  const body = (await res.json()) as Envelope<Array<{ id: string; name: string; run: string }>>;
  expect(body.code, JSON.stringify(body)).toBe(0);
  return body.data;
}

async function waitIndexed(): Promise<Array<{ id: string; name: string; run: string; progress: number; chunk_count: number; progress_msg: string }>> {
  const until = Date.now() + 60_000;
  for (;;) {
    const list = (await api(h, 'GET', `/api/v1/datasets/${datasetId}/documents?page_size=100`)).body as Envelope<{
      docs: Array<{ id: string; name: string; run: string; progress: number; chunk_count: number; progress_msg: string }>;
    }>;
    if (list.data.docs.every((d) => d.run === 'DONE' || d.run === 'FAIL') || Date.now() > until) return list.data.docs;
    await new Promise((r) => setTimeout(r, 200));
  }
}

for (const { name, databaseUrl, skipped } of stores)
  describe.skipIf(skipped !== undefined)(`datasets on ${name}`, () => {
    beforeAll(async () => {
      h = await startHarness({ scriptedEmbeddings: true, databaseUrl });
    }, 120_000);
    afterAll(async () => h?.close());

    it('creates a dataset, indexes txt, Markdown, HTML and PDF documents, and lists their chunks', async () => {
      const created = (await api(h, 'POST', '/api/v1/datasets', { body: { name: `manuals ${Date.now()}`, parser_config: { chunk_token_num: 64 } } }))
        .body as Envelope<{ id: string; embedding_model: string }>;
      expect(created.code).toBe(0);
      expect(created.data.embedding_model).toBe('scripted-embed');
      datasetId = created.data.id;
      const uploaded = await upload([
        { name: 'refunds.txt', body: 'Refunds reach the customer account within five business days. Shipping fees are not refunded.' },
        {
          name: 'guide.md',
          body: '# Setup Guide\n\n## Installing\n\nRun the installer and accept the license.\n\n## Resetting\n\nHold the power button for ten seconds to reset the device.',
        },
        { name: 'warranty.html', body: '<html><body><h1>Warranty</h1><p>The warranty covers <b>two years</b> of manufacturing defects.</p></body></html>' },
        { name: 'battery.pdf', body: textPdf(['The battery lasts twelve hours on a full charge.']) },
      ]);
      for (const d of uploaded) docs[d.name] = d.id;
      const indexed = await waitIndexed();
      expect(indexed.map((d) => [d.name, d.run]).sort()).toEqual([
        ['battery.pdf', 'DONE'],
        ['guide.md', 'DONE'],
        ['refunds.txt', 'DONE'],
        ['warranty.html', 'DONE'],
      ]);
      expect(indexed.every((d) => d.progress === 1 && d.chunk_count > 0)).toBe(true);
      // Each chunk through the endpoint (and nothing else embedded them).
      expect(h.llm.embeddingCalls.flatMap((c) => c.input).some((t) => t.includes('power button'))).toBe(true);

      const chunks = (await api(h, 'GET', `/api/v1/datasets/${datasetId}/documents/${docs['guide.md']}/chunks`)).body as Envelope<{
        total: number;
        chunks: Array<{ content: string }>;
      }>;
      expect(chunks.data.chunks.map((c) => c.content)).toEqual([
        'Setup Guide > Installing\nRun the installer and accept the license.',
        'Setup Guide > Resetting\nHold the power button for ten seconds to reset the device.',
      ]);
      const ds = (await api(h, 'GET', `/api/v1/datasets?id=${datasetId}`)).body as Envelope<Array<{ document_count: number; chunk_count: number }>>;
      expect(ds.data[0]).toMatchObject({ document_count: 4, chunk_count: 5 });
    });

    it('answers the retrieval test with the right chunk first', async () => {
      const r = (
        await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'how do I reset the device?', dataset_ids: [datasetId], similarity_threshold: 0.1 } })
      ).body as Envelope<{ chunks: Array<{ content: string; document_id: string; similarity: number }>; total: number }>;
      expect(r.code).toBe(0);
      expect(r.data.chunks[0]).toMatchObject({ document_id: docs['guide.md'], content: expect.stringContaining('power button') });
      const pdf = (await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'battery hours', dataset_ids: [datasetId] } })).body as Envelope<{
        chunks: Array<{ document_id: string }>;
      }>;
      expect(pdf.data.chunks[0]!.document_id).toBe(docs['battery.pdf']);
      const foreign = (await api(h, 'POST', '/api/v1/retrieval', { body: { question: 'battery', dataset_ids: [datasetId] }, key: h.otherKey }))
        .body as Envelope;
      expect(foreign.code).toBe(102);
    });

    it('runs a Retrieval → LLM canvas whose answer cites the chunk, with the reference in every reply form', async () => {
      const seen: RecordedCall[] = [];
      h.llm.whenPromptIncludes('MARK-kb', (call) => {
        seen.push(call);
        const system = String(call.body.messages[0]!.content);
        const id = /ID: (\d+)\n├── Title: refunds\.txt/.exec(system)?.[1];
        return { content: `Five business days [ID:${id}].` };
      });
      const canvas = dsl({
        begin: { name: 'Begin', downstream: ['Retrieval:kb'] },
        'Retrieval:kb': { name: 'Retrieval', params: { dataset_ids: [datasetId], top_n: 3, similarity_threshold: 0.1 }, downstream: ['LLM:answer'] },
        'LLM:answer': {
          name: 'LLM',
          params: { llm_id: 'm@OpenAI', sys_prompt: 'MARK-kb Answer from:\n{Retrieval:kb@formalized_content}' },
          downstream: ['Message:m'],
        },
        'Message:m': { name: 'Message', params: { content: ['{LLM:answer@content}'] } },
      });
      const agent = (await api(h, 'POST', '/api/v1/agents', { body: { title: `kb canvas ${Date.now()}`, dsl: canvas } })).body as Envelope<{ id: string }>;
      const res = await api(h, 'POST', '/api/v1/agents/chat/completions', {
        body: { agent_id: agent.data.id, query: 'how long do refunds take?', stream: true },
      });
      const events = parseSse(res.text)
        .filter((m) => m.json)
        .map((m) => m.json!);
      expect(events.at(-1)!.event).toBe('workflow_finished');
      expect(String(seen[0]!.body.messages[0]!.content)).toContain('# Citing sources');
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

      // RAGFlow's non-stream reply is the final message_end event: its data holds content and reference.
      const plain = (
        await api(h, 'POST', '/api/v1/agents/chat/completions', { body: { agent_id: agent.data.id, query: 'how long do refunds take?', stream: false } })
      ).body as Envelope<{ data: { content: string; reference: { chunks: Record<string, unknown> } } }>;
      expect(plain.data.data.content).toContain(`[ID:${cited}]`);
      expect(plain.data.data.reference.chunks[cited]).toBeTruthy();
      const openai = (
        await api(h, 'POST', '/v1/chat/completions', { body: { model: agent.data.id, messages: [{ role: 'user', content: 'how long do refunds take?' }] } })
      ).body as { choices: Array<{ message: { content: string; reference?: { chunks: Record<string, unknown> } } }> };
      expect(openai.choices[0]!.message.content).toContain(`[ID:${cited}]`);
      expect(openai.choices[0]!.message.reference?.chunks[cited]).toBeTruthy();
    });

    it('refuses unsupported files and foreign datasets with RAGFlow codes', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array([1, 2, 3])]), 'program.exe');
      const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}` },
        body: form,
      });
      // RAGFlow's words and codes: an unknown type fails the upload (500), a foreign dataset is a data error (102).
      expect(await res.json()).toMatchObject({ code: 500, message: 'program.exe: This type of file has not been supported yet!' });
      expect(((await api(h, 'GET', `/api/v1/datasets/${datasetId}/documents`, { key: h.otherKey })).body as Envelope).code).toBe(102);
      expect(((await api(h, 'POST', '/api/v1/datasets', { body: { name: '' } })).body as Envelope).code).toBe(101);
    });
  });
