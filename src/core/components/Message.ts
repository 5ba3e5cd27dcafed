/**
 * Message: shows templated text to the user. The engine renders it after the batch ran and
 * streams it as `message` events, token by token when the template references a model answer
 * that is still streaming. Among several alternatives the first non-empty one is used (RAGFlow
 * picks one at random; a deterministic choice keeps runs replayable).
 *
 * `auto_play` (RAGFlow's TTS): after the text, the engine asks for a `speak` call that writes a
 * `message` event `{content: "", audio_binary: <hex>}` when the worker has a speech endpoint
 * (TTS_MODEL); otherwise the Message's `tts` output says why there is no audio.
 */
import { z } from 'zod';
import { bool, executionParamsShape, templateRefs, uniqueRefs } from './common';
import type { CallOutcome, ComponentDef, Outcome } from './definition';
import { SPEAK_MAX_CHARS, type SpeakRequest, type SpeakResult } from './callContracts';
import { memoryResult } from './messageMemory';
import { lazySchema } from '../dsl/lazySchema';

const MessageParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    content: z.preprocess(
      (v) => (typeof v === 'string' ? [v] : v),
      z.array(z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string())).min(1, 'the message content must not be empty'),
    ),
    stream: bool(true),
    output_format: z.string().nullish(),
    auto_play: bool(false),
    status: z.string().nullish(),
    /** Memories the turn is saved to (RAGFlow's `memory_ids`), and whose turn it is (`user_id`, text or a variable). */
    memory_ids: z.preprocess((v) => (v == null ? [] : v), z.array(z.string())),
    user_id: z.string().nullish(),
  }),
);

export type MessageParams = z.infer<typeof MessageParams>;

/** The alternative that is shown: the first with visible text, else the first. */
export function chosenContent(p: MessageParams): string {
  return p.content.find((c) => c.trim() !== '') ?? p.content[0] ?? '';
}

/** The `tts` output of an auto_play Message that got no audio because the run cannot make speech. */
export const TTS_NOT_CONFIGURED = 'auto_play ignored: no speech endpoint configured (TTS_MODEL)';

/** The `speak` call for a Message's shown text (cut to {@link SPEAK_MAX_CHARS} characters). */
export function speakOutcome(text: string, slot: SpeakRequest['slot']): Outcome {
  const request: SpeakRequest = { text: text.slice(0, SPEAK_MAX_CHARS), slot };
  return { kind: 'calls', calls: [{ call: { activity: 'speak', request }, summary: `speech for ${request.text.length} chars` }] };
}

/** What the speech call came back with, as outputs: a failure or a note never fails the Message. */
function speakResult(given: unknown): Outcome {
  const r = (Array.isArray(given) ? given[0] : undefined) as CallOutcome | undefined;
  if (!r) return { kind: 'done', outputs: {} };
  if (!r.ok) return { kind: 'done', outputs: { tts: `auto_play failed: ${r.error}` } };
  const v = r.value as SpeakResult;
  return { kind: 'done', outputs: v.note ? { tts: v.note } : { tts: `audio: ${v.bytes} bytes` } };
}

export const Message: ComponentDef<MessageParams> = {
  name: 'Message',
  params: MessageParams,
  // v0.x's `messages` (read as `content` by src/core/dsl/normalize.ts).
  legacyParams: { messages: 'content' },
  role: 'message',
  execution: 'inline',
  outputNames: () => ['content', 'downloads'],
  inputRefs: (p) => uniqueRefs(p.content.flatMap((c) => templateRefs(c))),
  thoughts: () => '',
  // The content is produced while the engine streams the template (see messageTemplate).
  run: () => ({ kind: 'done', outputs: {} }),
  messageTemplate: (p) => chosenContent(p),
  onResult: (_p, _ctx, given, memo) => memoryResult(given, memo) ?? speakResult(given),
};
