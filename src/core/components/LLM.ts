/**
 * LLM: one model call. With a JSON schema under `outputs.structured` the answer is parsed (and
 * repaired) into the `structured` output, asking again up to `max_retries` times when it cannot
 * be parsed; otherwise the answer is the `content` output, streamed into a downstream Message.
 */
import { z } from 'zod';
import type { ChatMessage, LlmChatResult } from './callContracts';
import {
  buildPrompt,
  chatRequest,
  llmInputRefs,
  LlmParamsSchema,
  llmThoughts,
  parseModelJson,
  promptProblem,
  structuredOutputInstructions,
  structuredSchema,
  type LlmParams,
} from './llmPrompt';
import type { ComponentContext, ComponentDef, Outcome } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const LlmParamsWithStructure = lazySchema(() =>
  LlmParamsSchema.extend({
    output_structure: z.unknown().optional(),
    visual_files_var: z.string().nullish(),
  }),
);

export type LlmComponentParams = z.infer<typeof LlmParamsWithStructure>;

/** State carried between the attempts of a structured-output call. */
interface StructuredMemo {
  attempt: number;
  system: string;
  messages: ChatMessage[];
}

const NOT_JSON = "The answer can't be parsed as JSON. Answer again with only the JSON.";

/**
 * Plans the model call of an LLM-like component. `extraVars` carries legacy template variables.
 */
export function planModelCall(p: LlmParams, ctx: ComponentContext, extraVars: Record<string, string> = {}): Outcome {
  const built = buildPrompt(p, ctx, extraVars);
  const problem = promptProblem(built.messages);
  if (problem) return { kind: 'error', message: problem };
  const schema = structuredSchema(p.outputs);
  if (schema) {
    const system = built.system + structuredOutputInstructions(schema);
    const memo: StructuredMemo = { attempt: 1, system, messages: built.messages };
    return {
      kind: 'call',
      call: { activity: 'llmChat', request: chatRequest(p, system, built.messages, true) },
      summary: `structured answer from ${p.llm_id || 'default model'}`,
      memo,
      inputs: built.inputs,
    };
  }
  return {
    kind: 'call',
    call: { activity: 'llmChat', request: chatRequest(p, built.system, built.messages) },
    summary: `answer from ${p.llm_id || 'default model'}`,
    inputs: built.inputs,
  };
}

/** Reads a model answer for an LLM-like component (structured or plain). */
export function readModelAnswer(p: LlmParams, result: unknown, memo: unknown): Outcome {
  const answer = result as LlmChatResult;
  const m = memo as StructuredMemo | undefined;
  if (!m) return { kind: 'done', outputs: { content: answer.content, ...legacyStructured(p, answer.content) } };
  const parsed = parseModelJson(answer.content);
  if (parsed.ok) return { kind: 'done', outputs: { structured: parsed.value, content: answer.content } };
  if (m.attempt > p.max_retries) {
    return { kind: 'error', message: `The model's answer could not be parsed as JSON after ${m.attempt} attempt(s): ${parsed.error}` };
  }
  const messages: ChatMessage[] = [...m.messages, { role: 'assistant', content: answer.content }, { role: 'user', content: NOT_JSON }];
  const next: StructuredMemo = { attempt: m.attempt + 1, system: m.system, messages };
  return {
    kind: 'call',
    call: { activity: 'llmChat', request: chatRequest(p, m.system, messages, true) },
    summary: `structured answer, attempt ${next.attempt}`,
    memo: next,
  };
}

/**
 * Early agent canvases give an answer format by example (`output_structure`) and read the
 * parsed answer as `structured_content` (examples/iteration.json iterates over it).
 */
export function hasLegacyStructure(p: object): boolean {
  const example = (p as { output_structure?: unknown }).output_structure;
  return example !== undefined && example !== null && example !== '' && !(Array.isArray(example) && example.length === 0);
}

function legacyStructured(p: object, content: string): Record<string, unknown> {
  if (!hasLegacyStructure(p)) return {};
  const parsed = parseModelJson(content);
  return { structured_content: parsed.ok ? parsed.value : null };
}

export const LLM: ComponentDef<LlmComponentParams> = {
  name: 'LLM',
  params: LlmParamsWithStructure,
  role: 'plain',
  execution: 'activity',
  streamsContent: (p) => structuredSchema(p.outputs) === null,
  outputNames: (p) => [...(structuredSchema(p.outputs) ? ['content', 'structured'] : ['content']), ...(hasLegacyStructure(p) ? ['structured_content'] : [])],
  inputRefs: (p) => llmInputRefs(p),
  thoughts: (p, ctx) => llmThoughts(buildPrompt(p, ctx)),
  run: (p, ctx) => planModelCall(p, ctx),
  onResult: (p, _ctx, result, memo) => readModelAnswer(p, result, memo),
};
