/**
 * The `speak` activity (a Message's `auto_play`): synthesizes the Message's text and writes
 * RAGFlow's `message` event `{content: "", audio_binary: <hex>}` straight into the slot the engine
 * reserved, so the audio never passes through workflow history. Without TTS_MODEL it makes no
 * request and answers a note.
 */
import { Context } from '@temporalio/activity';
import type { SpeakRequest, SpeakResult } from '../src/core/components/callContracts';
import { TTS_NOT_CONFIGURED } from '../src/core/components/Message';
import { runEvent } from '../src/core/engine/runEvents';
import { AppError } from '../src/errors';
import { classifyLlmError } from '../src/io/llm/errors';
import type { LlmSettings } from '../src/io/llm/providers';
import { synthesize, ttsModelId } from '../src/io/llm/speech';
import type { Logger } from '../src/io/log';
import type { Store } from '../src/io/store/contract';
import { toFailure, type LlmCallOptions } from './llm';
import { abortedFailure } from './cancellation';

export interface SpeechActivityDeps {
  store: Store;
  settings: LlmSettings;
  log: Logger;
  /** The worker's settings (TTS_MODEL, TTS_VOICE), read before the model settings' own environment. */
  env?: Record<string, string | undefined>;
}

export function createSpeechActivities(deps: SpeechActivityDeps) {
  return {
    async speak(request: SpeakRequest, options: LlmCallOptions): Promise<SpeakResult> {
      const env = { ...deps.settings.env, ...deps.env };
      const settings = { ...deps.settings, env };
      const modelId = ttsModelId(settings);
      if (!modelId) return { bytes: 0, note: TTS_NOT_CONFIGURED };
      const { slot } = request;
      // An earlier attempt wrote the audio and then failed to report: nothing more to do.
      if ((await deps.store.events.lastSub(slot.runId, slot.seq)) > 0) return { bytes: 0, note: 'audio already written' };
      if (!request.text.trim()) return { bytes: 0, note: 'auto_play: no text to speak' };
      const ctx = Context.current();
      let audio: Buffer;
      try {
        audio = await synthesize(settings, modelId, request.text, ctx.cancellationSignal);
        // Audio read up to an abort is not the whole audio.
        if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx);
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw abortedFailure(ctx, err);
        const appErr = err instanceof AppError ? err : classifyLlmError(err, 'TTS');
        deps.log.warn('speech call failed', { code: appErr.code, attempt: ctx.info.attempt, model: modelId, error: appErr.message });
        throw toFailure(appErr, ctx.info.attempt > options.maxRetries);
      }
      await deps.store.events.append(slot.runId, [
        runEvent({ seq: slot.seq, sub: 1, message_id: slot.messageId, created_at: slot.createdAt, task_id: slot.runId }, 'message', {
          content: '',
          audio_binary: audio.toString('hex'),
        }),
      ]);
      return { bytes: audio.length };
    },
  };
}
