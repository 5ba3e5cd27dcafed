/**
 * TokenChunker, as RAGFlow's `rag/flow/chunker/token_chunker.py` behaves: text input (markdown,
 * text, html) is split at the backtick-wrapped delimiters, or merged to `chunk_token_size` with
 * `naive_merge` at the delimiters; JSON/chunk input keeps tables and images whole, splits the text
 * items' stream at the delimiters (each piece keeps the coordinates of the items it spans) or
 * merges adjacent text items to the budget (the overlap carries the previous chunk's tail and the
 * coordinates of the items in it); `children_delimiters` then split each chunk into children that
 * remember it as `mom`; tables and images may take `table_context_size` / `image_context_size`
 * tokens of the text around them. `delimiter_mode: "one"` makes the whole input one chunk.
 */
import type { TokenChunkerParams } from '../../../core/pipeline/components/TokenChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { delimiterPattern, naiveMerge, overlapPercent, removeTag, splitByPattern, tokens, wrappedDelimiterPattern } from './merge';
import { finalizePositions, PDF_POSITIONS_KEY, positionsOf, type Position } from './positions';

interface Work {
  text: string;
  kind: 'text' | 'table' | 'image';
  positions: Position[];
  tokens: number;
  img_id?: unknown;
  mom?: string;
  above?: string;
  below?: string;
  /** For merged text: the items it was built from (overlap coordinates). */
  items?: Array<{ text: string; positions: Position[] }>;
}

const SENTENCE = /([。!?？；！\n]|\. )/s;

function itemText(item: Record<string, unknown>): string {
  if (typeof item.text === 'string') return item.text;
  if (typeof item.content_with_weight === 'string') return item.content_with_weight;
  return '';
}

function kindOf(item: Record<string, unknown>): Work['kind'] {
  const t = String(item.doc_type_kwd ?? '')
    .trim()
    .toLowerCase();
  return t === 'table' ? 'table' : t === 'image' ? 'image' : 'text';
}

/** Sentences from one side of `text` until `need` tokens are collected. */
function takeSentences(text: string, need: number, fromEnd: boolean): string {
  const parts = text.split(SENTENCE);
  const sentences: string[] = [];
  for (let i = 0; i < parts.length; i += 2) sentences.push(parts[i]! + (parts[i + 1] ?? ''));
  let collected = '';
  for (const s of fromEnd ? sentences.reverse() : sentences) {
    collected = fromEnd ? s + collected : collected + s;
    if (tokens(collected) >= need) break;
  }
  return collected;
}

function attachMediaContext(chunks: Work[], tableSize: number, imageSize: number): void {
  chunks.forEach((chunk, i) => {
    if (chunk.kind === 'text') return;
    const size = chunk.kind === 'image' ? imageSize : tableSize;
    if (size <= 0) return;
    const above: string[] = [];
    const below: string[] = [];
    let remain = size;
    for (let j = i - 1; j >= 0 && remain > 0; j--) {
      const c = chunks[j]!;
      if (c.kind !== 'text') continue;
      if (c.tokens >= remain) {
        above.unshift(takeSentences(c.text, remain, true));
        break;
      }
      above.unshift(c.text);
      remain -= c.tokens;
    }
    remain = size;
    for (let j = i + 1; j < chunks.length && remain > 0; j++) {
      const c = chunks[j]!;
      if (c.kind !== 'text') continue;
      if (c.tokens >= remain) {
        below.push(takeSentences(c.text, remain, false));
        break;
      }
      below.push(c.text);
      remain -= c.tokens;
    }
    chunk.above = above.join('');
    chunk.below = below.join('');
  });
}

/** Positions of the previous chunk's items that the overlap tail `[start, end)` covers. */
function tailPositions(items: Array<{ text: string; positions: Position[] }>, start: number): Position[] {
  const out: Position[] = [];
  let offset = 0;
  const spans = items.map((it) => {
    const span = [offset, offset + it.text.length] as const;
    offset += it.text.length + 1;
    return span;
  });
  const total = spans.length > 0 ? spans[spans.length - 1]![1] : 0;
  items.forEach((it, i) => {
    const [s, e] = spans[i]!;
    if (s < total && e > start) out.push(...it.positions);
  });
  return out;
}

function mergeToTokenSize(chunks: Work[], size: number, percent: number): Work[] {
  const merged: Work[] = [];
  let prev = -1;
  const threshold = (size * (100 - percent)) / 100;
  for (const chunk of chunks) {
    if (chunk.kind !== 'text') {
      merged.push({ ...chunk });
      prev = -1;
      continue;
    }
    const cur: Work = { ...chunk, positions: [...chunk.positions] };
    const startNew = prev < 0 || merged[prev]!.tokens > threshold || cur.tokens > size;
    if (startNew) {
      if (prev >= 0 && percent > 0 && merged[prev]!.text) {
        const visible = removeTag(merged[prev]!.text);
        const start = Math.trunc((visible.length * (100 - percent)) / 100);
        const inRange = start >= 0 && start < visible.length;
        cur.text = (inRange ? visible.slice(start) : '') + cur.text;
        cur.positions = [...(inRange ? tailPositions(merged[prev]!.items ?? [], start) : []), ...cur.positions];
        cur.tokens = tokens(cur.text);
      }
      cur.items = [{ text: cur.text, positions: [...cur.positions] }];
      merged.push(cur);
      prev = merged.length - 1;
      continue;
    }
    const target = merged[prev]!;
    target.text = target.text && cur.text ? `${target.text}\n${cur.text}` : target.text + cur.text;
    target.positions.push(...cur.positions);
    target.tokens += cur.tokens;
    target.items!.push({ text: cur.text, positions: cur.positions });
  }
  return merged;
}

/** Splits the buffered text items' stream at the delimiters; a piece keeps the positions of the items it spans. */
function splitStream(items: Work[], pattern: string): Work[] {
  const ranges: Array<[number, number]> = [];
  let offset = 0;
  for (const it of items) {
    ranges.push([offset, offset + it.text.length]);
    offset += it.text.length + 1;
  }
  const combined = items.map((it) => it.text).join('\n');
  const out: Work[] = [];
  const re = new RegExp(pattern, 'gs');
  let pos = 0;
  const pieces: Array<[string, number, number]> = [];
  for (const m of combined.matchAll(re)) {
    if (m[0] === '') continue;
    pieces.push([combined.slice(pos, m.index), pos, m.index!]);
    pos = m.index! + m[0].length;
  }
  pieces.push([combined.slice(pos), pos, combined.length]);
  for (const [text, s, e] of pieces) {
    if (!text.trim()) continue;
    const positions: Position[] = [];
    ranges.forEach(([is, ie], i) => {
      if (s < ie && is < e) positions.push(...items[i]!.positions);
    });
    out.push({ text, kind: 'text', positions, tokens: tokens(text) });
  }
  return out;
}

function splitChildren(chunks: Work[], pattern: string): Work[] {
  if (!pattern) return chunks;
  const out: Work[] = [];
  for (const chunk of chunks) {
    if (chunk.kind !== 'text') {
      out.push(chunk);
      continue;
    }
    const mom = chunk.text.replace(/^\n/, '');
    for (const text of splitByPattern(chunk.text, pattern)) if (text.trim()) out.push({ ...chunk, mom, text });
  }
  return out;
}

function finalize(chunks: Work[]): PipelineChunk[] {
  const out: PipelineChunk[] = [];
  for (const c of chunks) {
    const text = removeTag((c.above ?? '') + c.text + (c.below ?? ''));
    if (!text.trim()) continue;
    const doc: PipelineChunk = { text, doc_type_kwd: c.kind };
    if (c.positions.length > 0) doc[PDF_POSITIONS_KEY] = c.positions;
    if (c.mom) doc.mom = c.mom;
    if (c.img_id) doc.img_id = c.img_id;
    out.push(finalizePositions(doc));
  }
  return out;
}

/** The chunks TokenChunker makes of its input. */
export function tokenChunks(p: TokenChunkerParams, input: PipelinePayload): PipelineChunk[] {
  const pattern = wrappedDelimiterPattern(p.delimiters);
  const children = delimiterPattern([...new Set(p.children_delimiters)].sort((a, b) => b.length - a.length));
  const percent = overlapPercent(p.overlapped_percent);
  const format = input.output_format;
  if (format === 'markdown' || format === 'text' || format === 'html') {
    const payload = input[format] ?? '';
    if (p.delimiter_mode === 'one') return payload.trim() ? [{ text: removeTag(payload) }] : [];
    const pieces = pattern ? splitByPattern(payload, pattern) : naiveMerge(payload, p.chunk_token_size, p.delimiters.join(''), percent);
    if (!children) return pieces.filter((c) => c.trim()).map((c) => ({ text: c.trim() }));
    const out: PipelineChunk[] = [];
    for (const c of pieces) {
      if (!c.trim()) continue;
      for (const text of splitByPattern(c, children)) if (text.trim()) out.push({ text, mom: c.replace(/^\n/, '') });
    }
    return out;
  }
  const items = ((format === 'chunks' ? input.chunks : input.json) ?? []) as Array<Record<string, unknown>>;
  if (p.delimiter_mode === 'one') {
    const merged = items
      .map(itemText)
      .filter((t) => t.trim())
      .map(removeTag)
      .join('\n');
    return merged.trim() ? [{ text: merged }] : [];
  }
  const work: Work[] = items.map((item) => {
    const text = itemText(item);
    const kind = kindOf(item);
    return { text, kind, positions: positionsOf(item), tokens: tokens(text), ...(kind !== 'text' ? { img_id: item.img_id, above: '', below: '' } : {}) };
  });
  const textWork = work.filter((w) => w.kind !== 'text' || w.text.trim());
  let chunks: Work[];
  if (pattern) {
    chunks = [];
    let buffer: Work[] = [];
    const flush = () => {
      if (buffer.length > 0) chunks.push(...splitStream(buffer, pattern));
      buffer = [];
    };
    for (const w of textWork) {
      if (w.kind === 'text') buffer.push(w);
      else {
        flush();
        chunks.push(w);
      }
    }
    flush();
    chunks = splitChildren(chunks, children);
    attachMediaContext(chunks, p.table_context_size, p.image_context_size);
  } else {
    attachMediaContext(textWork, p.table_context_size, p.image_context_size);
    chunks = splitChildren(mergeToTokenSize(textWork, p.chunk_token_size, percent), children);
  }
  return finalize(chunks);
}
