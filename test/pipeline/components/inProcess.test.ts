/**
 * RAGFlow's four pipeline templates run in process (the carriers' planItems → runItems →
 * applyItems protocol) on a small Markdown document and a small PDF, with the document in a real
 * store (PGlite) and the model and embeddings served by the scripted OpenAI-compatible server.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePipeline } from '../../../src/core/pipeline/compile';
import type { CompiledPipeline } from '../../../src/core/pipeline/types';
import { llmSettingsFromEnv } from '../../../src/io/llm/providers';
import {
  createPipelineServices,
  documentMetadata,
  runPipelineInProcess,
  vectorOf,
  type PipelineChunk,
  type PipelineServices,
} from '../../../src/io/knowledge/pipeline';
import { openStore } from '../../../src/io/store/store';
import type { Store } from '../../../src/io/store/contract';
import { textPdf } from '../../helpers/pdf';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../../helpers/scriptedLlm';

const GUIDE = [
  '# Pipelines guide',
  '',
  'Ingestion pipelines turn uploaded files into searchable chunks.',
  '',
  '## Parsing',
  '',
  'The parser reads the file and hands its text to the chunker.',
  '',
  '## Chunking',
  '',
  'The chunker cuts the text into pieces of about the configured size.',
].join('\n');

const PDF = textPdf(['Refunds take five business days to reach the account.', 'Support answers within one working day.']);

let llm: ScriptedLlm;
/** While set, the model holds every call open until the client hangs up. */
let hanging = false;
let store: Store;
let services: PipelineServices;
const docs: Record<string, { id: string; name: string; size: number }> = {};

function systemOf(call: RecordedCall): string {
  const m = call.body.messages.find((x) => x.role === 'system');
  return typeof m?.content === 'string' ? m.content : '';
}

function answer(call: RecordedCall): string {
  const system = systemOf(call);
  if (system.includes('precise summarizer')) return 'A short summary.';
  if (system.includes('important keywords')) return 'pipeline, chunk, parser';
  if (system.includes('Propose 3 questions')) return 'What is a pipeline?\nWhat does the parser do?\nHow big is a chunk?';
  if (system.includes('structured information')) return '```json\n{"topic": "pipelines", "pages": 2}\n```';
  return 'unexpected prompt';
}

const pipelineOf = (name: string): CompiledPipeline => {
  const r = compilePipeline(readFileSync(new URL(`../../fixtures/pipelines/${name}`, import.meta.url), 'utf8'));
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.pipeline;
};

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.when((call) => (hanging ? { hang: true } : { content: answer(call) }));
  store = await openStore({});
  const tenantId = `tenant-pipeline-${Date.now()}`;
  const dataset = await store.knowledge.datasets.create({
    tenantId,
    name: 'pipelines',
    embeddingModel: 'text-embedding-3-small',
    chunkMethod: 'naive',
    parserConfig: {},
  });
  for (const [name, type, bytes] of [
    ['guide.md', 'md', new TextEncoder().encode(GUIDE)],
    ['refunds.pdf', 'pdf', PDF],
  ] as const) {
    const doc = await store.knowledge.documents.create({ tenantId, datasetId: dataset.id, name, type, content: bytes });
    docs[type] = { id: doc.id, name, size: bytes.length };
  }
  services = createPipelineServices(
    { store, llm: { ...llmSettingsFromEnv({}), gatewayBaseUrl: llm.url, gatewayApiKey: 'test' }, embedding: { baseUrl: llm.url, apiKey: 'test' } },
    { tenantId, embeddingModel: dataset.embedding_model },
  );
}, 120_000);

afterAll(async () => {
  await llm?.stop();
  await store?.close();
});

async function run(template: string, type: 'md' | 'pdf', batchSize = 16): Promise<{ chunks: PipelineChunk[]; calls: number }> {
  const before = llm.calls.length;
  const out = await runPipelineInProcess(pipelineOf(template), docs[type]!, services, { batchSize });
  return { chunks: out.chunks ?? [], calls: llm.calls.length - before };
}

describe.each(['md', 'pdf'] as const)('the pipeline templates on a %s document', (type) => {
  it('advanced ingestion: every chunk gets a summary, keywords, questions and metadata, one model call each, and a vector', async () => {
    const { chunks, calls } = await run('advanced_ingestion_pipeline.json', type);
    expect(chunks.length).toBeGreaterThan(0);
    expect(calls).toBe(chunks.length * 4);
    for (const c of chunks) {
      expect(c).toMatchObject({
        summary: 'A short summary.',
        keywords: 'pipeline, chunk, parser',
        important_kwd: ['pipeline', 'chunk', 'parser'],
        question_kwd: ['What is a pipeline?', 'What does the parser do?', 'How big is a chunk?'],
      });
      expect(vectorOf(c)).toHaveLength(64);
    }
    expect(documentMetadata(chunks)).toEqual({ topic: ['pipelines'], pages: 2 });
    if (type === 'pdf') expect(chunks[0]!.page_num_int).toEqual([1, 2]);
  });

  it('chunk summary: the summary lands on each chunk and full-text search reads it', async () => {
    const { chunks, calls } = await run('chunk_summary.json', type);
    expect(calls).toBe(chunks.length);
    for (const c of chunks) {
      expect(c.summary).toBe('A short summary.');
      expect(c.content_ltks).toBe('short summary');
      expect(vectorOf(c)).toHaveLength(64);
    }
  });

  it('compiler: the chunks pass through with no model call', async () => {
    const { chunks, calls } = await run('compiler.json', type);
    expect(calls).toBe(0);
    expect(chunks.map((c) => c.text).join('\n')).toContain(type === 'md' ? 'The chunker cuts the text' : 'Support answers within one working day.');
  });

  it('title chunker: a chunk per heading section, each summarized and embedded', async () => {
    const { chunks } = await run('title_chunker.json', type);
    if (type === 'md')
      expect(chunks.map((c) => c.text)).toEqual([
        '# Pipelines guide\nIngestion pipelines turn uploaded files into searchable chunks.\n## Parsing\nThe parser reads the file and hands its text to the chunker.\n',
        '# Pipelines guide\nIngestion pipelines turn uploaded files into searchable chunks.\n## Chunking\nThe chunker cuts the text into pieces of about the configured size.\n',
      ]);
    else expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) {
      expect(c.summary).toBe('A short summary.');
      expect(vectorOf(c)).toHaveLength(64);
    }
  });
});

describe('pipeline details', () => {
  it('gives the same chunks whatever the batch size of the per-chunk calls', async () => {
    const strip = (cs: PipelineChunk[]) => cs.map((c) => ({ text: c.text, summary: c.summary }));
    const small = await run('chunk_summary.json', 'md', 1);
    const large = await run('chunk_summary.json', 'md', 64);
    expect(strip(small.chunks)).toEqual(strip(large.chunks));
  });

  it('mixes the file name into the vector by filename_embd_weight', async () => {
    const { chunks } = await run('chunk_summary.json', 'md');
    const signal = new AbortController().signal;
    const [name] = await services.embed([docs.md!.name], signal);
    const [content] = await services.embed([chunks[0]!.text], signal);
    const expected = content!.map((x, i) => 0.1 * name![i]! + 0.9 * x);
    vectorOf(chunks[0]!)!.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });

  it('stops a model call in flight when the run is cancelled', async () => {
    hanging = true;
    const calls = llm.calls.length;
    const controller = new AbortController();
    const running = runPipelineInProcess(pipelineOf('chunk_summary.json'), docs.md!, services, { signal: controller.signal });
    const outcome = running.then(
      () => 'finished',
      () => 'rejected',
    );
    await llm.waitForCalls(calls + 1);
    controller.abort(new Error('cancelled by the test'));
    await llm.waitForAbort();
    hanging = false;
    expect(await outcome).toBe('rejected');
    expect(llm.calls.length).toBe(calls + 1);
  });

  it('sends the chunk text in place of the chunks reference, under the template system prompt', async () => {
    const before = llm.calls.length;
    await run('chunk_summary.json', 'md');
    const call = llm.calls[before]!;
    expect(systemOf(call)).toMatch(/^Act as a precise summarizer/);
    const user = call.body.messages.find((m) => m.role === 'user')!.content as string;
    expect(user).toMatch(/^Text to Summarize:\n/);
    expect(user).toContain('Ingestion pipelines turn uploaded files');
    expect(user).not.toContain('@chunks');
  });
});
