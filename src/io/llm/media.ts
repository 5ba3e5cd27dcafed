/**
 * Media models for ingestion, over OpenAI-compatible endpoints, resolved like chat models (the
 * provider's endpoint and key, or LLM_BASE_URL):
 * - pictures: the vision model (a Parser image setup's model, else VISION_MODEL) gets one user
 *   message with the prompt and the image as an `image_url` data URI, as RAGFlow's `cv_model`
 *   `describe` / `describe_with_prompt` send it;
 * - audio: the speech-to-text model (the setup's model, else ASR_MODEL) at `/audio/transcriptions`.
 * Retries are the carrier's (activities); these make one request each.
 */
import { toFile } from 'openai';
import { AppError } from '../../errors';
import { clientFor } from './client';
import { classifyLlmError } from './errors';
import { resolveModel, type LlmSettings } from './providers';

/** RAGFlow's `describe` prompts (cv_model.py), by the setup's `lang`. */
export function describePrompt(lang: string): string {
  return lang.toLowerCase() === 'chinese'
    ? '请用中文详细描述一下图中的内容，比如时间，地点，人物，事情，人物心情等，如果有数据请提取出数据。'
    : 'Please describe the content of this picture, like where, when, who, what happen. If it has number data, please extract them out.';
}

function modelOr(llmId: string, settings: LlmSettings, envName: 'VISION_MODEL' | 'ASR_MODEL', what: string): string {
  const id = llmId.trim() || settings.env[envName]?.trim();
  if (!id) throw new AppError('COMPONENT_UNSUPPORTED', `No ${what} model is configured: set ${envName} (or name a model in the Parser setup)`);
  return id;
}

export async function describeImage(
  settings: LlmSettings,
  request: { llmId: string; prompt: string; image: Uint8Array; mime: string },
  signal: AbortSignal,
): Promise<string> {
  const target = resolveModel(modelOr(request.llmId, settings, 'VISION_MODEL', 'vision'), settings);
  const url = `data:${request.mime};base64,${Buffer.from(request.image).toString('base64')}`;
  try {
    const res = await clientFor(target).chat.completions.create(
      {
        model: target.model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: request.prompt },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      },
      { signal },
    );
    return res.choices[0]?.message?.content ?? '';
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    throw classifyLlmError(err, target.factory);
  }
}

export async function transcribe(settings: LlmSettings, request: { llmId: string; name: string; audio: Uint8Array }, signal: AbortSignal): Promise<string> {
  const target = resolveModel(modelOr(request.llmId, settings, 'ASR_MODEL', 'speech-to-text'), settings);
  try {
    const res = await clientFor(target).audio.transcriptions.create(
      { model: target.model, file: await toFile(Buffer.from(request.audio), request.name) },
      { signal },
    );
    return typeof res === 'string' ? res : res.text;
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    throw classifyLlmError(err, target.factory);
  }
}
