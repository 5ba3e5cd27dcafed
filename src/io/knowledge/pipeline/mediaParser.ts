/**
 * The Parser on media, as RAGFlow's `rag/flow/parser/parser.py` reads it, through models:
 * - image: one `image` item whose text is what the vision model sees (the setup's `llm_id`, or a
 *   `parse_method` naming a model, else VISION_MODEL), asked the setup's `system_prompt` or
 *   RAGFlow's description prompt in the setup's `lang`. RAGFlow's `ocr` method runs its OCR
 *   engine; there is none here, so `ocr` also goes to the vision model;
 * - audio: the transcript from the speech-to-text model (the setup's `vlm.llm_id`, else
 *   ASR_MODEL) as `text`;
 * - video: RAGFlow asks a video-capable vision model; here the sound track is transcribed by the
 *   speech-to-text model (OpenAI's endpoint takes mp4, mpeg, webm), as `text`.
 */
import type { ParserSetup } from '../../../core/pipeline/components/Parser';
import { describePrompt } from '../../llm/media';
import type { PipelineServices } from './contract';

const MIME: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export async function imageItems(setup: ParserSetup, name: string, bytes: Uint8Array, services: PipelineServices, signal: AbortSignal) {
  const ext = (name.split('.').pop() ?? '').toLowerCase();
  const method = str(setup.parse_method);
  const llmId = str(setup.llm_id) || (method && method.toLowerCase() !== 'ocr' ? method : '');
  const prompt = str(setup.system_prompt) || describePrompt(str(setup.lang) || 'Chinese');
  const text = await services.describeImage({ llmId, prompt, image: bytes, mime: MIME[ext] ?? 'image/png' }, signal);
  return [{ text: text.trim(), doc_type_kwd: 'image' }];
}

export async function transcript(setup: ParserSetup, name: string, bytes: Uint8Array, services: PipelineServices, signal: AbortSignal): Promise<string> {
  const vlm = typeof setup.vlm === 'object' && setup.vlm !== null ? (setup.vlm as Record<string, unknown>) : {};
  return (await services.transcribe({ llmId: str(vlm.llm_id), name, audio: bytes }, signal)).trim();
}
