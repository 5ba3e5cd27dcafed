/**
 * Prompt construction shared by the model-calling components (LLM, Agent, Generate), following
 * RAGFlow's `LLM._prepare_prompt_variables`: the conversation window without the current turn,
 * then the component's prompts rendered with the referenced values, then a system prompt with
 * its special sections removed. Pure.
 */
import { jsonrepair } from 'jsonrepair';
import { z } from 'zod';
import { pyJson, type VariableRef } from '../dsl/refs';
import { withCitations } from './citations';
import type { ChatMessage, GenConf, LlmChatRequest } from './callContracts';
import { bool, executionParamsShape, str, templateRefs, uniqueRefs, unitFloat } from './common';
import type { ComponentContext } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const PromptSchema = lazySchema(() =>
  z.looseObject({
    role: z.preprocess((v) => (v === undefined || v === null || v === '' ? 'user' : v), z.enum(['user', 'assistant', 'system'])),
    content: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
  }),
);

/** The params RAGFlow's LLMParam accepts (shared by LLM, Agent, Categorize, Generate). */
export const llmParamsShape = {
  ...executionParamsShape,
  llm_id: lazySchema(() => str('')),
  sys_prompt: lazySchema(() => str('')),
  prompts: lazySchema(() =>
    z.preprocess(
      (v) => (v === undefined || v === null ? [{ role: 'user', content: '{sys.query}' }] : typeof v === 'string' ? [{ role: 'user', content: v }] : v),
      z.array(PromptSchema).min(1, 'the user prompt must not be empty'),
    ),
  ),
  max_tokens: lazySchema(() =>
    z.preprocess((v) => (v === null || v === undefined || v === '' ? 0 : typeof v === 'string' ? Number(v) : v), z.number().min(0, 'must be 0 or more')),
  ),
  temperature: lazySchema(() => unitFloat(0)),
  top_p: lazySchema(() => unitFloat(0)),
  presence_penalty: lazySchema(() => unitFloat(0)),
  frequency_penalty: lazySchema(() => unitFloat(0)),
  maxTokensEnabled: lazySchema(() => bool(false)),
  temperatureEnabled: lazySchema(() => bool(false)),
  topPEnabled: lazySchema(() => bool(false)),
  presencePenaltyEnabled: lazySchema(() => bool(false)),
  frequencyPenaltyEnabled: lazySchema(() => bool(false)),
  cite: lazySchema(() => bool(true)),
};

export const LlmParamsSchema = lazySchema(() => z.looseObject(llmParamsShape));
export type LlmParams = z.infer<typeof LlmParamsSchema>;

/**
 * RAGFlow's `gen_conf`: a generation setting is only sent when its "enabled" switch is on, so
 * canvases that never touched a slider use the provider's defaults.
 */
export function genConf(p: LlmParams): GenConf {
  const conf: GenConf = {};
  if (p.max_tokens > 0 && p.maxTokensEnabled) conf.max_tokens = Math.trunc(p.max_tokens);
  if (p.temperature >= 0 && p.temperatureEnabled) conf.temperature = p.temperature;
  if (p.top_p > 0 && p.topPEnabled) conf.top_p = p.top_p;
  if (p.presence_penalty > 0 && p.presencePenaltyEnabled) conf.presence_penalty = p.presence_penalty;
  if (p.frequency_penalty > 0 && p.frequencyPenaltyEnabled) conf.frequency_penalty = p.frequency_penalty;
  return conf;
}

/** References read by the system prompt and the prompts. */
export function llmInputRefs(p: Pick<LlmParams, 'sys_prompt' | 'prompts'>): VariableRef[] {
  return uniqueRefs([...templateRefs(p.sys_prompt), ...p.prompts.flatMap((m) => templateRefs(m.content))]);
}

/** A referenced value as prompt text: nothing → "", strings as-is, the rest as JSON. */
function promptValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : pyJson(v);
}

const SECTION_TAGS = ['TASK_ANALYSIS', 'PLAN_GENERATION', 'REFLECTION', 'CONTEXT_SUMMARY', 'CONTEXT_RANKING', 'CITATION_GUIDELINES'];

/** Removes RAGFlow's user-defined prompt sections (`<TASK_ANALYSIS>...`) from a system prompt. */
export function extractSections(sysPrompt: string): { sections: Record<string, string>; rest: string } {
  const sections: Record<string, string> = {};
  let rest = sysPrompt;
  for (const tag of SECTION_TAGS) {
    const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'i');
    const m = re.exec(rest);
    if (!m) continue;
    sections[tag.toLowerCase()] = m[1] ?? '';
    rest = rest.replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, 'gi'), '');
  }
  return { sections, rest };
}

export interface BuiltPrompt {
  system: string;
  messages: ChatMessage[];
  /** The referenced values, as shown in `node_finished.inputs`. */
  inputs: Record<string, string>;
}

/**
 * Builds the system prompt and messages for a model call.
 * `extraVars` adds template variables outside the reference syntax (legacy `{input}`).
 */
export function buildPrompt(
  p: Pick<LlmParams, 'sys_prompt' | 'prompts' | 'message_history_window_size'> & { cite?: boolean },
  ctx: ComponentContext,
  extraVars: Record<string, string> = {},
): BuiltPrompt {
  const inputs: Record<string, string> = {};
  for (const ref of llmInputRefs(p)) inputs[ref.expr] = promptValue(ctx.resolve(ref));
  const fill = (text: string): string => {
    let out = ctx.render(text);
    for (const [name, value] of Object.entries(extraVars)) out = out.split(`{${name}}`).join(value);
    return out;
  };

  const messages = ctx.history(p.message_history_window_size).slice(0, -1);
  const historySize = messages.length;
  for (const prompt of p.prompts) {
    const formatted: ChatMessage = { role: prompt.role, content: fill(prompt.content) };
    const last = messages[messages.length - 1];
    if (messages.length === historySize && last && last.role === formatted.role) messages[messages.length - 1] = formatted;
    else messages.push(formatted);
  }
  attachFiles(p, ctx, messages);
  const { rest } = extractSections(fill(p.sys_prompt));
  // RAGFlow asks for citations when the run holds retrieved chunks; a sub-agent's answer is
  // cited by the agent that uses it, not by the sub-agent.
  const citing = p.cite !== false && ctx.hasReference() && !ctx.id.includes('-->');
  return { system: withCitations(rest, citing), messages, inputs };
}

/**
 * RAGFlow's `_collect_sys_files`: when the prompts do not place `{sys.files}` themselves, the
 * run's files join the last user message. They are `⟦file:<id>⟧` markers here; the model
 * activity turns them into the documents' text and `image_url` parts.
 */
function attachFiles(p: Pick<LlmParams, 'sys_prompt' | 'prompts'>, ctx: ComponentContext, messages: ChatMessage[]): void {
  const files = ctx.globals['sys.files'];
  if (!Array.isArray(files) || files.length === 0) return;
  if (llmInputRefs(p).some((r) => r.kind === 'global' && r.name === 'sys.files')) return;
  const markers = files.filter((f): f is string => typeof f === 'string' && f !== '');
  if (markers.length === 0) return;
  const joined = markers.join('\n\n');
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      messages[i] = { ...messages[i]!, content: `${messages[i]!.content}\n\n${joined}` };
      return;
    }
  }
  messages.push({ role: 'user', content: joined });
}

/** RAGFlow refuses to call a model whose last message is not a non-empty user message. */
export function promptProblem(messages: ChatMessage[]): string | null {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || last.content.trim() === '') {
    return 'The user message to the model is empty: check the prompt and the variables it references (e.g. an empty sys.query)';
  }
  return null;
}

export function chatRequest(p: LlmParams, system: string, messages: ChatMessage[], json = false): LlmChatRequest {
  const all: ChatMessage[] = system.trim() ? [{ role: 'system', content: system }, ...messages] : [...messages];
  return { llmId: p.llm_id, messages: all, gen: genConf(p), ...(json ? { json: true } : {}) };
}

/** The JSON schema under `outputs.structured`, when it has properties (RAGFlow's rule). */
export function structuredSchema(outputs: Record<string, unknown>): Record<string, unknown> | null {
  const cand = outputs.structured;
  if (typeof cand !== 'object' || cand === null) return null;
  const hasProps = (o: unknown): o is Record<string, unknown> =>
    typeof o === 'object' &&
    o !== null &&
    typeof (o as { properties?: unknown }).properties === 'object' &&
    Object.keys((o as { properties: object }).properties ?? {}).length > 0;
  if (hasProps(cand)) return cand;
  for (const k of ['schema', 'structured']) {
    const inner = (cand as Record<string, unknown>)[k];
    if (hasProps(inner)) return inner;
  }
  return null;
}

/** System-prompt addendum asking for JSON that fits the schema. */
export function structuredOutputInstructions(schema: Record<string, unknown>): string {
  return [
    '',
    'Answer with a single JSON value that conforms to the JSON schema below.',
    '- Output only the JSON: no explanations, no Markdown fences.',
    '- Use JSON strings for text, JSON numbers for numbers, true/false for booleans.',
    'JSON schema:',
    JSON.stringify(schema, null, 2),
  ].join('\n');
}

/** Parses a model's JSON answer, repairing common damage (fences, thinking, trailing commas). */
export function parseModelJson(answer: string): { ok: true; value: unknown } | { ok: false; error: string } {
  let text = answer.replace(/^[\s\S]*<\/think>/, '');
  const fence = text.lastIndexOf('```json');
  if (fence >= 0) text = text.slice(fence + '```json'.length);
  else if (text.trimStart().startsWith('```')) text = text.trimStart().replace(/^```[^\n]*\n?/, '');
  text = text.replace(/```\s*$/, '').trim();
  if (!text) return { ok: false, error: 'the answer is empty' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // Repair only what looks like JSON damage: prose "repaired" into a string is not an answer,
    // but JSON wrapped in a sentence is.
    const start = text.search(/[[{]/);
    if (start < 0) return { ok: false, error: 'the answer is not JSON' };
    const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
    const candidate = end > start ? text.slice(start, end + 1) : text.slice(start);
    try {
      return { ok: true, value: JSON.parse(jsonrepair(candidate)) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

/** RAGFlow's LLM `thoughts`: where the model starts from. */
export function llmThoughts(built: BuiltPrompt): string {
  const last = built.messages[built.messages.length - 1]?.content ?? '';
  return `⌛Give me a moment—starting from: \n\n${last.replace(/(User's query:|[\\]+)/g, '')}\n\nI’ll figure out our best next move.`;
}
