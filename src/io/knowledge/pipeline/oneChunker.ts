/**
 * OneChunker, as RAGFlow's Go `chunker/one.go` behaves: a text, Markdown or HTML payload is one
 * text chunk; structured items (JSON, or upstream chunks when there is no JSON) collapse into one:
 * a single item keeps its type, image and coordinates, several are joined by line breaks into a
 * text chunk that keeps the first image and no coordinates (merged geometry of different items
 * would point at the wrong pages). Coordinate tags are stripped; a blank document gives no chunk.
 */
import type { OneChunkerParams } from '../../../core/pipeline/components/OneChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { removeTag } from './merge';
import { finalizePositions, PDF_POSITIONS_KEY, positionsOf } from './positions';

type Item = Record<string, unknown>;

/** An item's text as the Go chunkers read it: `text`, else `content_with_weight`. */
export function goItemText(item: Item): string {
  if (typeof item.text === 'string' && item.text !== '') return item.text;
  return typeof item.content_with_weight === 'string' ? item.content_with_weight : '';
}

/** RAGFlow's `itemDocType`: table and image kept, anything else text. */
export function goDocType(item: Item): 'text' | 'table' | 'image' {
  const t = String(item.doc_type_kwd ?? '')
    .trim()
    .toLowerCase();
  return t === 'table' ? 'table' : t === 'image' ? 'image' : 'text';
}

/** The image reference an item carries, if any (`img_id`, or `image` as the Go engine names it). */
export function imageOf(item: Item): unknown {
  return item.img_id ?? item.image ?? undefined;
}

/** The structured records a Go chunker reads: the JSON items, else the upstream chunks. */
export function structuredItems(input: PipelinePayload): Item[] {
  const json = (input.json ?? []) as Item[];
  return json.length > 0 ? json : ((input.chunks ?? []) as Item[]);
}

/** A flat payload (text, Markdown, HTML) as its one chunk; null when the input is structured. */
export function flatPayloadChunk(input: PipelinePayload): PipelineChunk[] | null {
  const format = input.output_format;
  if (format !== 'markdown' && format !== 'text' && format !== 'html') return null;
  const text = input[format] ?? '';
  return text.trim() ? [{ text: removeTag(text), doc_type_kwd: 'text' }] : [];
}

function oneOfItems(items: Item[]): PipelineChunk[] {
  if (items.length === 0) return [];
  if (items.length === 1) {
    const item = items[0]!;
    const text = goItemText(item);
    const image = imageOf(item);
    if (!text.trim() && !image) return [];
    const chunk: PipelineChunk = { text: removeTag(text), doc_type_kwd: goDocType(item) };
    if (image) chunk.img_id = image;
    const positions = positionsOf(item);
    if (positions.length > 0) chunk[PDF_POSITIONS_KEY] = positions;
    return [finalizePositions(chunk)];
  }
  const parts: string[] = [];
  let image: unknown;
  for (const item of items) {
    const text = goItemText(item);
    if (text) parts.push(removeTag(text));
    image ??= imageOf(item);
  }
  const merged = parts.join('\n');
  if (!merged.trim() && !image) return [];
  return [{ text: merged, doc_type_kwd: 'text', ...(image ? { img_id: image } : {}) }];
}

/** The chunk OneChunker makes of its input (none for a blank document). */
export function oneChunks(_p: OneChunkerParams, input: PipelinePayload): PipelineChunk[] {
  return flatPayloadChunk(input) ?? oneOfItems(structuredItems(input));
}
