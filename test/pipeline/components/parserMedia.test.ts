/**
 * The Parser on slides, pictures, audio and video: slide text per slide (a .pptx read from its
 * XML), pictures through the vision model (OpenAI-compatible chat with an `image_url` part),
 * audio and video through `/audio/transcriptions`, all against the scripted model server, with
 * the files in a real store (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParserParamsSchema } from '../../../src/core/pipeline/components/Parser';
import { createPipelineServices, pipelineSteps, type PipelinePayload } from '../../../src/io/knowledge/pipeline';
import { llmSettingsFromEnv } from '../../../src/io/llm/providers';
import { openStore } from '../../../src/io/store/store';
import type { Store } from '../../../src/io/store/contract';
import { isAppError } from '../../../src/errors';
import { pptx } from '../../helpers/pptx';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../../helpers/scriptedLlm';

let llm: ScriptedLlm;
let store: Store;
let tenantId = '';
let datasetId = '';
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.imageDescription = (call) => `A red bicycle (model ${call.body.model})`;
  store = await openStore({});
  tenantId = `tenant-media-${Date.now()}`;
  datasetId = (
    await store.knowledge.datasets.create({ tenantId, name: 'media', embeddingModel: 'text-embedding-3-small', chunkMethod: 'naive', parserConfig: {} })
  ).id;
}, 120_000);

afterAll(async () => {
  await llm?.stop();
  await store?.close();
});

function servicesWith(env: Record<string, string>) {
  return createPipelineServices(
    { store, llm: { ...llmSettingsFromEnv(env), gatewayBaseUrl: llm.url, gatewayApiKey: 'test' }, embedding: { baseUrl: llm.url, apiKey: 'test' } },
    { tenantId, embeddingModel: 'text-embedding-3-small' },
  );
}

async function parse(
  name: string,
  bytes: Uint8Array,
  params: Record<string, unknown> = {},
  env = { VISION_MODEL: 'gpt-4o-mini', ASR_MODEL: 'whisper-1' },
): Promise<PipelinePayload> {
  const doc = await store.knowledge.documents.create({ tenantId, datasetId, name, type: name.split('.').pop()!, content: bytes });
  const step = { id: 'Parser:P', component: 'Parser' as const, params: ParserParamsSchema.parse(params) };
  return pipelineSteps.runStep(step, { name, file: { id: doc.id, name, size: bytes.length } }, servicesWith(env), new AbortController().signal);
}

const imagePart = (call: RecordedCall) => (call.body.messages[0]!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>) ?? [];

describe('Parser on slides', () => {
  it('reads the text of each slide, in presentation order, an item per slide, empty slides left out', async () => {
    const deck = pptx([['Quarterly review', 'Revenue & costs'], [], ['Next steps']], [3, 1, 2]);
    const out = await parse('deck.pptx', deck);
    expect(out.output_format).toBe('json');
    expect(out.json).toEqual([
      { text: 'Next steps', doc_type_kwd: 'text', slide_number: 1 },
      { text: 'Quarterly review\nRevenue & costs', doc_type_kwd: 'text', slide_number: 2 },
    ]);
  });

  it('refuses the old binary .ppt and a damaged .pptx clearly', async () => {
    await expect(parse('old.ppt', new Uint8Array([0xd0, 0xcf]))).rejects.toThrow(/\.ppt format/);
    await expect(parse('broken.pptx', new Uint8Array([1, 2, 3]))).rejects.toThrow(/cannot be read as a PowerPoint file/);
  });
});

describe('Parser on pictures', () => {
  it("sends the picture to VISION_MODEL as an image_url data URI with RAGFlow's description prompt", async () => {
    const before = llm.calls.length;
    const out = await parse('bike.png', PNG);
    expect(out.json).toEqual([{ text: 'A red bicycle (model gpt-4o-mini)', doc_type_kwd: 'image' }]);
    const [call] = llm.calls.slice(before);
    const parts = imagePart(call!);
    expect(parts[0]!.text).toContain('请用中文详细描述'); // the setup's default lang is Chinese
    expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${Buffer.from(PNG).toString('base64')}`);
  });

  it("uses the setup's model, prompt and language when given", async () => {
    const before = llm.calls.length;
    const out = await parse('bike.jpg', PNG, { image: { suffix: ['jpg'], llm_id: 'qwen-vl@Tongyi-Qianwen', system_prompt: 'List the objects.' } });
    expect(out.json).toEqual([{ text: 'A red bicycle (model qwen-vl)', doc_type_kwd: 'image' }]);
    expect(imagePart(llm.calls[before]!)[0]!.text).toBe('List the objects.');
    const english = await parse('bike.gif', PNG, { image: { suffix: ['gif'], lang: 'English' } });
    expect(english.json).toHaveLength(1);
    expect(imagePart(llm.calls[llm.calls.length - 1]!)[0]!.text).toMatch(/^Please describe the content of this picture/);
  });

  it('fails clearly, naming VISION_MODEL, when no vision model is configured', async () => {
    const err = await parse('bike.png', PNG, {}, { ASR_MODEL: 'whisper-1' } as never).catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('COMPONENT_UNSUPPORTED');
    expect(String((err as Error).message)).toMatch(/VISION_MODEL/);
  });
});

describe('Parser on audio and video', () => {
  it('transcribes audio with ASR_MODEL at /audio/transcriptions, as text', async () => {
    const before = llm.transcriptionCalls.length;
    const out = await parse('memo.mp3', new Uint8Array([0xff, 0xfb, 0x90, 0x44, 1, 2, 3]));
    expect([out.output_format, out.text]).toEqual(['text', 'Scripted transcript of memo.mp3.']);
    expect(llm.transcriptionCalls.slice(before)).toEqual([{ model: 'whisper-1', fileName: 'memo.mp3', bytes: 7 }]);
  });

  it("uses the setup's vlm.llm_id, and transcribes a video's sound track", async () => {
    const before = llm.transcriptionCalls.length;
    await parse('memo.wav', new Uint8Array([1, 2]), { audio: { suffix: ['wav'], vlm: { llm_id: 'sensevoice@SILICONFLOW' } } });
    const video = await parse('clip.mp4', new Uint8Array([0, 0, 0, 24]));
    expect(video.text).toBe('Scripted transcript of clip.mp4.');
    expect(llm.transcriptionCalls.slice(before).map((c) => c.model)).toEqual(['sensevoice', 'whisper-1']);
  });

  it('fails clearly, naming ASR_MODEL, when no speech-to-text model is configured', async () => {
    await expect(parse('memo.mp3', new Uint8Array([1]), {}, { VISION_MODEL: 'v' } as never)).rejects.toThrow(/ASR_MODEL/);
  });
});
