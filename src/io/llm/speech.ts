/**
 * Text to speech over an OpenAI-compatible `/audio/speech` endpoint, for Messages with
 * `auto_play`. The model is TTS_MODEL (`tts-1@OpenAI`, resolved like chat models: the provider's
 * endpoint and key, or LLM_BASE_URL); TTS_VOICE picks the voice (default `alloy`).
 */
import { clientFor } from './client';
import { resolveModel, type LlmSettings } from './providers';

export const DEFAULT_TTS_VOICE = 'alloy';

/** The configured speech model id, or null when speech is off. */
export function ttsModelId(settings: LlmSettings): string | null {
  return settings.env.TTS_MODEL?.trim() || null;
}

/** Synthesizes `text`; the audio bytes (mp3 unless the endpoint answers another format). */
export async function synthesize(settings: LlmSettings, modelId: string, text: string, signal?: AbortSignal): Promise<Buffer> {
  const target = resolveModel(modelId, settings);
  const response = await clientFor(target).audio.speech.create(
    { model: target.model, voice: settings.env.TTS_VOICE?.trim() || DEFAULT_TTS_VOICE, input: text },
    signal ? { signal } : {},
  );
  return Buffer.from(await response.arrayBuffer());
}
