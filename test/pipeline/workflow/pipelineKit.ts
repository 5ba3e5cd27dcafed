/**
 * Shared by the ingestion pipeline workflow tests: RAGFlow's pipeline templates saved through
 * the agent routes, a dataset pointing at one, uploads, waiting for the documents to settle, and
 * the scripted model answering every Extractor prompt of the templates by what it asks for.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { api, type Harness } from '../../helpers/appHarness';
import type { RecordedCall, ScriptedLlm } from '../../helpers/scriptedLlm';

export type Envelope<T = Record<string, unknown>> = { code: number; message?: string; data: T };

export const TEMPLATES = ['advanced_ingestion_pipeline', 'chunk_summary', 'compiler', 'title_chunker'] as const;

export function template(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../fixtures/pipelines/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** The chunk text an Extractor call is about (the user message, after the template's label line). */
export function chunkTextOf(call: RecordedCall): string {
  const user = [...call.body.messages].reverse().find((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : '';
  return text.split('\n').slice(1).join('\n').trim() || text;
}

const systemOf = (call: RecordedCall) => String(call.body.messages.find((m) => m.role === 'system')?.content ?? '');

/** What each kind of Extractor prompt in RAGFlow's templates gets back (derived from the chunk, so tests can check it landed). */
export function answerExtractors(llm: ScriptedLlm): void {
  llm.when((call) => {
    const sys = systemOf(call);
    const words = chunkTextOf(call).split(/\s+/).filter(Boolean);
    if (/summarizer/i.test(sys)) return { content: `SUMMARY ${words.slice(0, 6).join(' ')}` };
    if (/keywords/i.test(sys)) return { content: `kw-${(words[1] ?? 'none').toLowerCase()}, pipelinekeyword` };
    if (/questions/i.test(sys)) return { content: `What about ${words[1] ?? 'it'}?\nWhy pipelines?` };
    if (/structured information/i.test(sys)) return { content: '{"source": "pipeline-test"}' };
    if (sys) return { content: `EXTRACTED ${words.slice(0, 3).join(' ')}` };
    return undefined;
  });
}

/** Saves a pipeline canvas (RAGFlow's export form) as RAGFlow's web app does; answers its id. */
export async function createPipeline(h: Harness, name: string, title = `${name} ${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', { body: { title, dsl: template(name), canvas_category: 'dataflow_canvas' } });
  const body = res.body as Envelope<{ id: string; canvas_category: string }>;
  expect(body.code, res.text).toBe(0);
  expect(body.data.canvas_category).toBe('dataflow_canvas');
  return body.data.id;
}

export async function createDataset(h: Harness, pipelineId: string | null): Promise<string> {
  const body = pipelineId ? { name: `ds ${Math.random().toString(36).slice(2)}`, parse_type: 2, pipeline_id: pipelineId } : { name: `ds ${Math.random()}` };
  const res = await api(h, 'POST', '/api/v1/datasets', { body });
  const env = res.body as Envelope<{ id: string; pipeline_id: string | null }>;
  expect(env.code, res.text).toBe(0);
  expect(env.data.pipeline_id).toBe(pipelineId);
  return env.data.id;
}

export async function upload(h: Harness, datasetId: string, files: Array<{ name: string; body: Uint8Array | string }>, parse = true): Promise<string[]> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([typeof f.body === 'string' ? new TextEncoder().encode(f.body) : f.body]), f.name);
  form.append('parse', String(parse));
  const res = await fetch(`${h.base}/api/v1/datasets/${datasetId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${h.key}` }, body: form });
  const body = (await res.json()) as Envelope<Array<{ id: string }>>;
  expect(body.code, JSON.stringify(body)).toBe(0);
  return body.data.map((d) => d.id);
}

export interface DocView {
  id: string;
  name: string;
  run: string;
  progress: number;
  progress_msg: string;
  chunk_count: number;
}

export async function documents(h: Harness, datasetId: string): Promise<DocView[]> {
  const res = await api(h, 'GET', `/api/v1/datasets/${datasetId}/documents?page_size=100`);
  return (res.body as Envelope<{ docs: DocView[] }>).data.docs;
}

/** Waits until no document of the dataset is running (or `timeoutMs` passes). */
export async function settled(h: Harness, datasetId: string, timeoutMs = 180_000): Promise<DocView[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const docs = await documents(h, datasetId);
    if (docs.every((d) => d.run === 'DONE' || d.run === 'FAIL' || d.run === 'CANCEL') || Date.now() > until) return docs;
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function retrieve(h: Harness, datasetId: string, question: string): Promise<Array<{ content: string; document_id: string }>> {
  const res = await api(h, 'POST', '/api/v1/retrieval', { body: { question, dataset_ids: [datasetId], similarity_threshold: 0 } });
  const body = res.body as Envelope<{ chunks: Array<{ content: string; document_id: string }> }>;
  expect(body.code, res.text).toBe(0);
  return body.data.chunks;
}
