/**
 * Extractor, as RAGFlow's `rag/flow/extractor/extractor.py` behaves: its prompts reference the
 * chunks (`{TokenChunker:X@chunks}`); for each chunk the reference reads as the chunk's text, the
 * model is asked once, and the answer is written to the chunk under `field_name` (`summary`,
 * `keywords`, `questions`, `metadata`, …). When no referenced value is a list, the model is asked
 * once with the values and the output is one chunk holding the answer. The per-chunk calls are
 * items (`planItems` / `runItems` / `applyItems`) so a carrier can batch them durably.
 */
import type { ExtractorParams } from '../../../core/pipeline/components/Extractor';
import { extractSections, genConf } from '../../../core/components/llmPrompt';
import { findRefs, pyJson } from '../../../core/dsl/refs';
import type { PipelineChatRequest, PipelineChunk, PipelinePayload, PipelineServices } from './contract';

const field = (input: PipelinePayload, key: string): unknown => (input as unknown as Record<string, unknown>)[key];

type Templates = Array<{ role: string; text: string }>;

function templates(p: ExtractorParams): Templates {
  return [{ role: 'system', text: p.sys_prompt }, ...p.prompts.map((m) => ({ role: m.role, text: m.content }))];
}

/** The input key whose list the prompts iterate over (RAGFlow: the last list-valued reference), or null. */
export function listKey(p: ExtractorParams, input: PipelinePayload): string | null {
  let key: string | null = null;
  for (const t of templates(p))
    for (const { ref } of findRefs(t.text)) if (ref.kind === 'component' && Array.isArray(field(input, ref.output))) key = ref.output;
  return key;
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : pyJson(v);
}

function render(text: string, input: PipelinePayload, key: string | null, itemText: string): string {
  let out = '';
  let last = 0;
  for (const m of findRefs(text)) {
    out += text.slice(last, m.start);
    if (m.ref.kind === 'component') out += m.ref.output === key ? itemText : valueText(field(input, m.ref.output));
    last = m.end;
  }
  return out + text.slice(last);
}

/** The model request for one item (or the whole input when `key` is null). */
export function extractorRequest(p: ExtractorParams, input: PipelinePayload, key: string | null, itemText: string): PipelineChatRequest {
  const system = extractSections(render(p.sys_prompt, input, key, itemText)).rest;
  const messages = p.prompts
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const), content: render(m.content, input, key, itemText) }));
  const gen = genConf(p);
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return {
    llmId: p.llm_id,
    system,
    user,
    ...(messages.length > 1 ? { messages } : {}),
    ...(gen.temperature !== undefined ? { temperature: gen.temperature } : {}),
    ...(gen.max_tokens !== undefined ? { maxTokens: gen.max_tokens } : {}),
    ...(gen.top_p !== undefined ? { topP: gen.top_p } : {}),
    ...(gen.presence_penalty !== undefined ? { presencePenalty: gen.presence_penalty } : {}),
    ...(gen.frequency_penalty !== undefined ? { frequencyPenalty: gen.frequency_penalty } : {}),
  };
}

/** A model answer without its `<think>` part, as RAGFlow keeps it. */
export function answerText(answer: string): string {
  return answer.replace(/^[\s\S]*<\/think>/, '').trim();
}

function items(p: ExtractorParams, input: PipelinePayload): { key: string | null; list: Array<Record<string, unknown>> } {
  const key = listKey(p, input);
  const list = key ? (field(input, key) as unknown[]) : [];
  return { key, list: list.map((x) => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>) : { text: x })) };
}

export function extractorItemCount(p: ExtractorParams, input: PipelinePayload): number {
  return items(p, input).list.length;
}

/** Asks the model for items [from, to). */
export async function runExtractorItems(
  p: ExtractorParams,
  input: PipelinePayload,
  from: number,
  to: number,
  services: PipelineServices,
  signal: AbortSignal,
): Promise<string[]> {
  const { key, list } = items(p, input);
  const out: string[] = [];
  for (let i = from; i < Math.min(to, list.length); i++) {
    signal.throwIfAborted();
    const text = typeof list[i]!.text === 'string' ? (list[i]!.text as string) : valueText(list[i]!.text);
    out.push(answerText(await services.chat(extractorRequest(p, input, key, text), signal)));
    services.progress((i + 1 - from) / Math.max(1, to - from), `${i + 1} / ${list.length}`);
  }
  return out;
}

/** The items with their answers under `field_name`. */
export function applyExtractorItems(p: ExtractorParams, input: PipelinePayload, results: unknown[]): PipelinePayload {
  const { list } = items(p, input);
  if (results.length !== list.length) throw new Error(`Extractor: ${results.length} answers for ${list.length} chunks`);
  const chunks = list.map((item, i) => ({
    ...item,
    text: typeof item.text === 'string' ? item.text : valueText(item.text),
    [p.field_name]: results[i],
  })) as PipelineChunk[];
  return { ...input, output_format: 'chunks', chunks };
}

/** The whole step when there is no list to iterate: one call, one chunk holding the answer. */
export async function runExtractorOnce(p: ExtractorParams, input: PipelinePayload, services: PipelineServices, signal: AbortSignal): Promise<PipelinePayload> {
  const { key, list } = items(p, input);
  if (key && list.length > 0) return applyExtractorItems(p, input, await runExtractorItems(p, input, 0, list.length, services, signal));
  if (key) return { ...input, output_format: 'chunks', chunks: [] };
  const answer = answerText(await services.chat(extractorRequest(p, input, null, ''), signal));
  return { ...input, output_format: 'chunks', chunks: [{ [p.field_name]: answer } as unknown as PipelineChunk] };
}
