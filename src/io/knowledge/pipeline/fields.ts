/**
 * What the fields an Extractor writes mean once a chunk is stored, as RAGFlow's task executor
 * reads them (`run_dataflow`): `keywords` → `important_kwd` (split at , ， ; ； 、 and line breaks),
 * `questions` → `question_kwd` (a question per line), `summary` → what full-text search reads
 * instead of the text, `metadata` → the document's metadata (a JSON object, repaired when the
 * model's JSON is damaged, merged over chunks: string values collect into lists).
 */
import { parseModelJson } from '../../../core/components/llmPrompt';
import type { PipelineChunk } from './contract';

export function splitKeywords(keywords: unknown): string[] {
  if (Array.isArray(keywords)) return keywords.map(String).filter((k) => k.trim());
  if (typeof keywords !== 'string') return [];
  return keywords
    .split(/[,，;；、\r\n]+/)
    .map((k) => k.trim())
    .filter(Boolean);
}

export function splitQuestions(questions: unknown): string[] {
  if (Array.isArray(questions)) return questions.map(String).filter((q) => q.trim());
  if (typeof questions !== 'string') return [];
  return questions
    .split('\n')
    .map((q) => q.trim())
    .filter(Boolean);
}

/** A chunk's `metadata` as an object, or null when it is not one. */
export function metadataOf(chunk: PipelineChunk): Record<string, unknown> | null {
  let meta = chunk.metadata;
  if (typeof meta === 'string') {
    const parsed = parseModelJson(meta);
    meta = parsed.ok ? parsed.value : null;
  }
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : null;
}

/** RAGFlow's `update_metadata_to`: string values (and lists of strings) collect, deduplicated; other values replace. */
export function mergeMetadata(into: Record<string, unknown>, meta: Record<string, unknown> | null): Record<string, unknown> {
  if (!meta) return into;
  const out = { ...into };
  for (const [k, v] of Object.entries(meta)) {
    const strings = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
    if (!strings) {
      out[k] = v;
      continue;
    }
    if (strings.length === 0) continue;
    const prev = out[k];
    const prevList = typeof prev === 'string' ? [prev] : Array.isArray(prev) ? prev.map(String) : [];
    out[k] = [...new Set([...prevList, ...strings])];
  }
  return out;
}

/** The document metadata the chunks' `metadata` fields add up to. */
export function documentMetadata(chunks: readonly PipelineChunk[]): Record<string, unknown> {
  return chunks.reduce((acc, c) => mergeMetadata(acc, metadataOf(c)), {} as Record<string, unknown>);
}

/** The vector a Tokenizer wrote (`q_<dim>_vec`), if any. */
export function vectorOf(chunk: PipelineChunk): number[] | null {
  for (const [k, v] of Object.entries(chunk)) if (/^q_\d+_vec$/.test(k) && Array.isArray(v)) return v as number[];
  return null;
}
