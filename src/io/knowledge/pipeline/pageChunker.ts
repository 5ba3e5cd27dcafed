/**
 * PageChunker, as RAGFlow's Go `chunker/page.go` behaves: each upstream slide or page record
 * (the JSON items, else the upstream chunks) passes through as its own chunk. Its templates
 * configure only PDF and slides setups, whose output is always per-page JSON; a flat payload
 * (text, Markdown, HTML) has no pages and gives no chunk, as in RAGFlow.
 */
import type { PageChunkerParams } from '../../../core/pipeline/components/PageChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { goItemText, structuredItems } from './oneChunker';
import { finalizePositions } from './positions';

/** A record passed through as a chunk: its fields kept, `text` read as the Go chunkers read it. */
export function recordChunk(item: Record<string, unknown>): PipelineChunk {
  return finalizePositions({ ...item, text: goItemText(item), doc_type_kwd: item.doc_type_kwd ?? 'text' });
}

export function pageChunks(_p: PageChunkerParams, input: PipelinePayload): PipelineChunk[] {
  const format = input.output_format;
  if (format === 'markdown' || format === 'text' || format === 'html') return [];
  return structuredItems(input).map(recordChunk);
}
