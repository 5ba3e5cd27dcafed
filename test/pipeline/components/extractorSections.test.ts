/**
 * The Go engine's sectioned Extractor (RAGFlow's `internal/ingestion/component/extractor.go`,
 * `extractor_tag.go`), run through the carriers' protocol (planItems → runItems → applyItems)
 * against the scripted OpenAI-compatible model, with a tag file stored as a document (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractorParamsSchema } from '../../../src/core/pipeline/components/Extractor';
import type { PipelineStep } from '../../../src/core/pipeline/types';
import { createPipelineServices, pipelineSteps, type PipelinePayload, type PipelineServices } from '../../../src/io/knowledge/pipeline';
import { llmSettingsFromEnv } from '../../../src/io/llm/providers';
import { openStore } from '../../../src/io/store/store';
import type { Store } from '../../../src/io/store/contract';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../../helpers/scriptedLlm';

let llm: ScriptedLlm;
let store: Store;
let services: PipelineServices;
let tagFileId = '';
/** A tag file large enough that a matched example's tags weigh at least 1 (RAGFlow's weight shrinks with the set's size). */
let bigTagFileId = '';

const systemOf = (call: RecordedCall) => String(call.body.messages.find((m) => m.role === 'system')?.content ?? '');
const userOf = (call: RecordedCall) => String([...call.body.messages].reverse().find((m) => m.role === 'user')?.content ?? '');

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.when((call) => {
    const sys = systemOf(call);
    const user = userOf(call);
    if (sys.startsWith('CUSTOM')) return { content: 'custom, answer' };
    if (sys.includes('keywords/phrases'))
      return { content: user.includes('broken') ? '**ERROR**: model down' : `<think>hmm</think>${user.split(' ')[0]}, battery，storage` };
    if (sys.includes('propose the top')) return { content: 'How to store it?\n\nWhy charge to 80%?' };
    if (sys.includes('faithful text summarizer')) return { content: `SUMMARY of ${user.slice(0, 12)}` };
    if (sys.includes('Metadata extraction expert'))
      return { content: user.includes('nothing') ? '{}' : '```json\n{"brand": "Acme", "model": "", "year": null}\n```' };
    if (sys.includes('Add tags (labels)')) return { content: '{"finance": 7, "legal": 3, "other": 0, "sports": 9}' };
    return { content: 'unexpected prompt' };
  });
  store = await openStore({});
  const tenantId = `tenant-extractor-${Date.now()}`;
  const dataset = await store.knowledge.datasets.create({
    tenantId,
    name: 'tags',
    embeddingModel: 'text-embedding-3-small',
    chunkMethod: 'tag',
    parserConfig: {},
  });
  const tagCsv = 'lithium battery charge storage,"battery,care"\nquarterly revenue report,finance\nfootball match results,sports\n';
  const filler = Array.from({ length: 10_000 }, (_, i) => `filler row ${i},tag${i}`).join('\n');
  bigTagFileId = (
    await store.knowledge.documents.create({
      tenantId,
      datasetId: dataset.id,
      name: 'big.txt',
      type: 'txt',
      content: new TextEncoder().encode(`quarterly revenue report,finance\n${filler}\n`),
    })
  ).id;
  tagFileId = (
    await store.knowledge.documents.create({ tenantId, datasetId: dataset.id, name: 'tags.csv', type: 'csv', content: new TextEncoder().encode(tagCsv) })
  ).id;
  services = createPipelineServices(
    { store, llm: { ...llmSettingsFromEnv({}), gatewayBaseUrl: llm.url, gatewayApiKey: 'test' }, embedding: { baseUrl: llm.url, apiKey: 'test' } },
    { tenantId, embeddingModel: dataset.embedding_model },
  );
}, 120_000);

afterAll(async () => {
  await llm?.stop();
  await store?.close();
});

const stepOf = (params: Record<string, unknown>): PipelineStep => ({
  id: 'Extractor:T',
  component: 'Extractor',
  params: ExtractorParamsSchema.parse({ llm_id: '', ...params }),
});
const chunks = (...texts: string[]): PipelinePayload => ({ name: 'battery.md', output_format: 'chunks', chunks: texts.map((text) => ({ text })) });

/** Runs the step as a carrier does, in batches of `batch`; the output and the model calls it made. */
async function run(params: Record<string, unknown>, input: PipelinePayload, batch = 16): Promise<{ out: PipelinePayload; calls: RecordedCall[] }> {
  const step = stepOf(params);
  const before = llm.calls.length;
  const signal = new AbortController().signal;
  const plan = pipelineSteps.planItems(step, input);
  let out: PipelinePayload;
  if (plan.items === 0) out = await pipelineSteps.runStep(step, input, services, signal);
  else {
    const results: unknown[] = [];
    for (let from = 0; from < plan.items; from += batch)
      results.push(...(await pipelineSteps.runItems(step, input, from, Math.min(plan.items, from + batch), services, signal)));
    out = pipelineSteps.applyItems(step, JSON.parse(JSON.stringify(input)) as PipelinePayload, JSON.parse(JSON.stringify(results)) as unknown[]);
  }
  return { out, calls: llm.calls.slice(before) };
}

const OFF = {
  keywords: { top_n: 0 },
  questions: { top_n: 0 },
  tags: { top_n: 0, tag_file_id: '' },
  summary: { enabled: false },
  metadata: { enabled: false, metadata: [], built_in_metadata: [] },
};

describe('Extractor params: the sectioned form beside field_name', () => {
  const cases: Array<{ name: string; params: Record<string, unknown>; ok: boolean; message?: string }> = [
    { name: "the Go templates' all-off sections load without field_name", params: OFF, ok: true },
    { name: 'one section alone loads', params: { summary: { enabled: 1 } }, ok: true },
    { name: 'the field_name form still needs its field', params: { prompts: [{ role: 'user', content: 'x' }] }, ok: false, message: 'field_name' },
    { name: 'a negative top_n is refused at its path', params: { keywords: { top_n: -1 } }, ok: false, message: 'top_n' },
    { name: 'a fractional top_n is refused', params: { questions: { top_n: 1.5 } }, ok: false, message: 'top_n' },
  ];
  for (const c of cases)
    it(c.name, () => {
      const r = ExtractorParamsSchema.safeParse(c.params);
      expect(r.success).toBe(c.ok);
      if (!r.success && c.message) expect(r.error.issues.map((i) => i.path.join('.')).join(' ')).toContain(c.message);
    });

  it('reads enabled as a boolean or 1, and keeps only metadata fields with a key', () => {
    const p = ExtractorParamsSchema.parse({
      summary: { enabled: 1 },
      metadata: { enabled: true, metadata: [{ key: ' brand ' }, { key: '' }, 'x', { description: 'no key' }] },
    });
    expect(p.summary?.enabled).toBe(true);
    expect(p.metadata?.metadata.map((d) => d.key)).toEqual(['brand']);
  });
});

describe('the sectioned Extractor against the scripted model', () => {
  it('with every section off asks nothing and passes the chunks on', async () => {
    const { out, calls } = await run(OFF, chunks('a', 'b'));
    expect(calls).toHaveLength(0);
    expect(out.chunks).toEqual([{ text: 'a' }, { text: 'b' }]);
  });

  it('writes important_kwd and important_tks per chunk with the keyword prompt naming top_n, at temperature 0.2', async () => {
    const { out, calls } = await run({ keywords: { top_n: 3 } }, chunks('Lithium batteries age', 'Spare cells'));
    expect(out.chunks!.map((c) => c.important_kwd)).toEqual([
      ['Lithium', 'battery', 'storage'],
      ['Spare', 'battery', 'storage'],
    ]);
    expect(out.chunks![0]!.important_tks).toBe('lithium battery storage');
    expect(systemOf(calls[0]!)).toContain('give the top 3 important keywords/phrases');
    expect([userOf(calls[0]!), calls[0]!.body.temperature]).toEqual(['Lithium batteries age', 0.2]);
  });

  it('writes question_kwd, one question per non-empty line', async () => {
    const { out } = await run({ questions: { top_n: 2 } }, chunks('Store in a drawer'));
    expect(out.chunks![0]!.question_kwd).toEqual(['How to store it?', 'Why charge to 80%?']);
  });

  it('writes summary', async () => {
    const { out } = await run({ summary: { enabled: true } }, chunks('Batteries like cool places'));
    expect(out.chunks![0]!.summary).toBe('SUMMARY of Batteries li');
  });

  it('writes metadata from the field schema, dropping empty values, over what the chunk had', async () => {
    const fields = [
      { key: 'model', type: 'string' },
      { key: 'brand', description: 'the maker', enum: ['Acme', 'Other'] },
    ];
    const input: PipelinePayload = {
      name: 'a',
      output_format: 'chunks',
      chunks: [{ text: 'Acme battery', metadata: { source: 'manual' } }, { text: 'nothing here' }],
    };
    const { out, calls } = await run({ metadata: { enabled: true, metadata: fields } }, input);
    expect(out.chunks!.map((c) => c.metadata)).toEqual([{ source: 'manual', brand: 'Acme' }, undefined]);
    expect(systemOf(calls[0]!)).toContain(
      '{"additionalProperties":false,"properties":{"brand":{"description":"the maker","enum":["Acme","Other"],"type":"string"},"model":{"type":"string"}},"type":"object"}',
    );
  });

  it('sets the built-in metadata fields on the document, only with metadata enabled', async () => {
    const now = await run({ metadata: { enabled: true, built_in_metadata: [{ key: 'file_name' }, { key: 'update_time' }] } }, chunks('x'));
    expect(now.out.built_in_metadata).toEqual({ file_name: 'battery.md', update_time: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    expect(now.calls).toHaveLength(0);
    const off = await run({ metadata: { enabled: false, built_in_metadata: [{ key: 'file_name' }] } }, chunks('x'));
    expect(off.out.built_in_metadata).toBeUndefined();
  });

  it('does not ask again for a field the chunk already has', async () => {
    const input: PipelinePayload = { name: 'a', output_format: 'chunks', chunks: [{ text: 'x', important_kwd: ['kept'] }] };
    const { out, calls } = await run({ keywords: { top_n: 3 } }, input);
    expect([out.chunks![0]!.important_kwd, calls.length]).toEqual([['kept'], 0]);
  });

  it("uses a section's own system_prompt", async () => {
    const { out, calls } = await run({ keywords: { top_n: 2, system_prompt: 'CUSTOM keywords' } }, chunks('x'));
    expect([systemOf(calls[0]!), out.chunks![0]!.important_kwd]).toEqual(['CUSTOM keywords', ['custom', 'answer']]);
  });

  it('writes nothing for an **ERROR** answer', async () => {
    const { out } = await run({ keywords: { top_n: 2 } }, chunks('broken chunk'));
    expect(out.chunks![0]).toEqual({ text: 'broken chunk' });
  });

  it("reads the parser's JSON items when no chunker ran", async () => {
    const { out } = await run({ summary: { enabled: true } }, { name: 'a', output_format: 'json', json: [{ text: 'Item one text', doc_type_kwd: 'text' }] });
    expect(out.chunks).toEqual([{ text: 'Item one text', doc_type_kwd: 'text', summary: 'SUMMARY of Item one tex' }]);
  });

  it('gives the same chunks whatever the batch size', async () => {
    const input = chunks('one a', 'two b', 'three c', 'four d', 'five e');
    const params = { keywords: { top_n: 2 }, summary: { enabled: true } };
    expect((await run(params, input, 2)).out).toEqual((await run(params, input, 16)).out);
  });

  it('tags a chunk matching a tag-file example (half its words or more) without the model', async () => {
    const { out, calls } = await run({ tags: { top_n: 2, tag_file_id: bigTagFileId } }, chunks('quarterly revenue report'));
    expect(out.chunks![0]!.tag_feas).toEqual({ finance: expect.any(Number) });
    expect(calls).toHaveLength(0);
  });

  it('asks the model for chunks matching no example, shown the tag set, and keeps the top_n positive scores', async () => {
    const { out, calls } = await run({ tags: { top_n: 2, tag_file_id: tagFileId } }, chunks('the board approved the merger'));
    expect(out.chunks![0]!.tag_feas).toEqual({ sports: 9, finance: 7 });
    expect(calls).toHaveLength(1);
    const prompt = systemOf(calls[0]!);
    expect(prompt).toContain('# TAG SET\nbattery, care, finance, sports');
    expect(prompt).toContain('top 2 most relevant tags');
    expect([userOf(calls[0]!), calls[0]!.body.temperature]).toEqual(['Output:', 0.5]);
  });

  it('refuses a tag_file_id naming no document, naming the field', async () => {
    await expect(run({ tags: { top_n: 2, tag_file_id: 'no-such-file' } }, chunks('x'))).rejects.toThrow(/tags\.tag_file_id/);
  });
});
