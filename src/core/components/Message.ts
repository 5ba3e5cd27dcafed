/**
 * Message: shows templated text to the user. The engine renders it after the batch ran and
 * streams it as `message` events, token by token when the template references a model answer
 * that is still streaming. Among several alternatives the first non-empty one is used (RAGFlow
 * picks one at random; a deterministic choice keeps runs replayable).
 */
import { z } from 'zod';
import { bool, executionParamsShape, templateRefs, uniqueRefs } from './common';
import type { ComponentDef } from './definition';
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
  }),
);

export type MessageParams = z.infer<typeof MessageParams>;

/** The alternative that is shown: the first with visible text, else the first. */
export function chosenContent(p: MessageParams): string {
  return p.content.find((c) => c.trim() !== '') ?? p.content[0] ?? '';
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
};
