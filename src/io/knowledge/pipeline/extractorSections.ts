/**
 * The Go engine's sectioned Extractor (RAGFlow's `internal/ingestion/component/extractor.go`):
 * over the upstream chunks (or the parser's JSON items), each chunk is asked, one call per
 * enabled section with the section's prompt as the system message, the chunk text as the user
 * message and temperature 0.2, for `important_kwd` (+ `important_tks`), `question_kwd`
 * (+ `question_tks`), `summary` and `metadata` (a JSON object per the field definitions, merged
 * over the chunk's own); a field the chunk already has is not asked for again. `tags` adds
 * `tag_feas` from a tag file (./extractorTags.ts). With `metadata` enabled, the
 * `built_in_metadata` fields `file_name` and `update_time` are set on the document afterwards,
 * over what was extracted. Per-chunk work is items, so carriers batch it durably.
 */
import { sectionsActive, type ExtractorSections, type MetadataFieldDef } from '../../../core/pipeline/components/Extractor';
import { AppError } from '../../../errors';
import { tokenize } from '../../text/tokens';
import type { PipelineChunk, PipelinePayload, PipelineServices } from './contract';
import { answerText } from './extractor';
import { autoKeywordPrompt, autoMetadataPrompt, autoQuestionPrompt, autoSummaryPrompt, taggerPrompt } from './extractorPrompts';
import { indexTagSource, matchTags, parseTagSource, parseTaggerAnswer, type TagSource } from './extractorTags';
import { splitKeywords } from './fields';

type Chunk = Record<string, unknown>;
const TEMPERATURE = 0.2;
const terms = (text: string) => tokenize(text).join(' ');

/** The list the Extractor works on: the upstream chunks, else the parser's JSON items. */
export function sectionedList(input: PipelinePayload): Chunk[] {
  const list = input.output_format === 'chunks' ? input.chunks : input.json;
  return ((list ?? []) as unknown[]).filter((c): c is Chunk => typeof c === 'object' && c !== null);
}

export function sectionedItemCount(s: ExtractorSections, input: PipelinePayload): number {
  return sectionsActive(s) ? sectionedList(input).length : 0;
}

const chunkText = (c: Chunk) =>
  typeof c.content_with_weight === 'string' && c.content_with_weight.trim() ? c.content_with_weight : typeof c.text === 'string' ? c.text : '';

/** RAGFlow's `cleanLLMText` + `cleanExtractionResult`: no think part, no tool calls, nothing from an **ERROR** answer. */
function cleaned(answer: string): string {
  const s = answerText(answer)
    .replace(/<tool_call>[\s\S]*?<\/tool_call>/g, '')
    .trim();
  return s.includes('**ERROR**') ? '' : s;
}

/** RAGFlow's `Turn2JSONSchema`, keys in Go's (sorted) order. */
export function metadataSchema(defs: MetadataFieldDef[]): string {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const d of [...defs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const prop: Record<string, unknown> = {};
    if (d.description) prop.description = d.description;
    if (d.enum.length > 0) Object.assign(prop, { enum: d.enum, type: 'string' });
    else if (d.type) prop.type = d.type;
    properties[d.key] = prop;
  }
  return JSON.stringify({ additionalProperties: false, properties, type: 'object' });
}

/** RAGFlow's `tryParseJSONObject`: a non-empty JSON object, code fences allowed; null otherwise. */
export function parseObject(answer: string): Record<string, unknown> | null {
  let s = answer.trim();
  if (s.startsWith('```')) {
    const nl = s.indexOf('\n');
    s = nl >= 0 ? s.slice(nl + 1) : s.slice(3);
    s = s.replace(/^\s*json\s*\n/i, '');
    const close = s.lastIndexOf('```');
    if (close >= 0) s = s.slice(0, close);
  }
  try {
    const v = JSON.parse(s.trim()) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function loadTags(s: ExtractorSections, services: PipelineServices): Promise<TagSource | null> {
  if (s.tags.top_n <= 0 || !s.tags.tag_file_id) return null;
  const file = await services.readTagFile(s.tags.tag_file_id);
  if (!file) throw new AppError('COMPONENT_PARAMS', `Extractor tags.tag_file_id: no document ${s.tags.tag_file_id} to read tags from`);
  const examples = await parseTagSource(file.name, file.bytes);
  if (!examples) throw new AppError('COMPONENT_PARAMS', `Extractor tags.tag_file_id: ${file.name} is not a tag file (only .xlsx, .txt and .csv are read)`);
  return indexTagSource(examples);
}

async function ask(services: PipelineServices, llmId: string, system: string, text: string, signal: AbortSignal, temperature = TEMPERATURE): Promise<string> {
  return services.chat({ llmId, system, user: text.trim() ? text : ' ', temperature }, signal);
}

/** Items [from, to): for each chunk, the fields to add. */
export async function runSectionedItems(
  llmId: string,
  s: ExtractorSections,
  input: PipelinePayload,
  from: number,
  to: number,
  services: PipelineServices,
  signal: AbortSignal,
): Promise<Chunk[]> {
  const list = sectionedList(input);
  const tags = await loadTags(s, services);
  // Matching is cheap and pure: every batch matches all chunks so the model sees the same examples.
  const matched = tags ? list.map((c) => matchTags(chunkText(c), tags, s.tags.top_n)) : [];
  const examples = matched.flatMap((m, i) => (m ? [{ content: chunkText(list[i]!), weights: m }] : [])).slice(0, 2);
  const out: Chunk[] = [];
  for (let i = from; i < Math.min(to, list.length); i++) {
    signal.throwIfAborted();
    const chunk = list[i]!;
    const text = chunkText(chunk);
    const add: Chunk = {};
    if (tags && text) {
      let weights = matched[i] ?? null;
      if (!weights) {
        const tagSet = [...tags.allTags.keys()].sort().join(', ');
        const shown = examples.length > 0 ? examples : [{ content: 'This is an example', weights: { example: 1 } }];
        const answer = await services.chat({ llmId, system: taggerPrompt(s.tags.top_n, tagSet, shown, text), user: 'Output:', temperature: 0.5 }, signal);
        weights = parseTaggerAnswer(answer, s.tags.top_n);
      }
      if (weights) add.tag_feas = weights;
    }
    if (s.keywords.top_n > 0 && !('important_kwd' in chunk)) {
      const kw = splitKeywords(cleaned(await ask(services, llmId, s.keywords.system_prompt.trim() || autoKeywordPrompt(s.keywords.top_n), text, signal)));
      if (kw.length > 0) Object.assign(add, { important_kwd: kw, important_tks: terms(kw.join(' ')) });
    }
    if (s.questions.top_n > 0 && !('question_kwd' in chunk)) {
      const answer = cleaned(await ask(services, llmId, s.questions.system_prompt.trim() || autoQuestionPrompt(s.questions.top_n), text, signal));
      const qs = answer
        .split('\n')
        .map((q) => q.trim())
        .filter(Boolean);
      if (qs.length > 0) Object.assign(add, { question_kwd: qs, question_tks: terms(qs.join('\n')) });
    }
    if (s.summary.enabled && !('summary' in chunk)) {
      const summary = cleaned(await ask(services, llmId, s.summary.system_prompt.trim() || autoSummaryPrompt, text, signal));
      if (summary) add.summary = summary;
    }
    if (s.metadata.enabled && s.metadata.metadata.length > 0) {
      const parsed = parseObject(cleaned(await ask(services, llmId, autoMetadataPrompt(metadataSchema(s.metadata.metadata)), text, signal)));
      if (parsed) {
        const own = typeof chunk.metadata === 'object' && chunk.metadata !== null && !Array.isArray(chunk.metadata) ? (chunk.metadata as Chunk) : {};
        const kept = Object.entries(parsed).filter(([, v]) => v !== null && !(typeof v === 'string' && !v.trim()));
        add.metadata = { ...own, ...Object.fromEntries(kept) };
      }
    }
    out.push(add);
    services.progress((i + 1 - from) / Math.max(1, to - from), `${i + 1} / ${list.length}`);
  }
  return out;
}

/** RAGFlow's `update_time` format, "2006-01-02 15:04:05". */
function timestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The chunks with their added fields, and the built-in metadata the document gets. */
export function applySectionedItems(s: ExtractorSections, input: PipelinePayload, results: unknown[], now: () => Date = () => new Date()): PipelinePayload {
  const list = sectionedList(input);
  if (results.length !== 0 && results.length !== list.length) throw new Error(`Extractor: ${results.length} answers for ${list.length} chunks`);
  const chunks = list.map((c, i) => ({
    ...c,
    text: typeof c.text === 'string' ? c.text : chunkText(c),
    ...((results[i] as Chunk | undefined) ?? {}),
  })) as PipelineChunk[];
  const out: PipelinePayload = { ...input, output_format: 'chunks', chunks };
  const builtIn: Record<string, unknown> = {};
  if (s.metadata.enabled)
    for (const d of s.metadata.built_in_metadata) {
      if (d.key === 'update_time') builtIn.update_time = timestamp(now());
      if (d.key === 'file_name' && input.name) builtIn.file_name = input.name;
    }
  if (Object.keys(builtIn).length > 0) out.built_in_metadata = builtIn;
  return out;
}
