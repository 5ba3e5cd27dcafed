/**
 * RAGFlow's text-splitting primitives the chunkers share (`rag/nlp/delim.py`, `naive_merge` in
 * `rag/nlp/__init__.py`, the coordinate tags of its PDF parser): the delimiter field grammar
 * (backtick-wrapped multi-character delimiters, every other character a delimiter of its own),
 * the paragraph merge to a token budget with an optional overlap, and `@@page\tx0\tx1\ttop\tbottom##`
 * tags, which never reach a chunk's text. Tokens are counted by `countTokens` (words; CJK
 * characters one each) where RAGFlow uses tiktoken's cl100k: sizes are close, not identical.
 */
import { countTokens } from '../../text/tokens';

export const tokens = (text: string): number => countTokens(text);

const TAG = /@@[\t0-9.-]+?##/g;

/** Text without the PDF parser's coordinate tags. */
export function removeTag(text: string | undefined | null): string {
  return (text ?? '').replace(TAG, '');
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** RAGFlow's `parse_delimiter_field`: backtick-wrapped tokens and single characters, deduplicated, longest first. */
export function parseDelimiterField(field: string): string[] {
  if (!field) return [];
  const s = normalizeNewlines(field);
  const out: string[] = [];
  const add = (d: string) => {
    if (d && !out.includes(d)) out.push(d);
  };
  let cursor = 0;
  for (const m of s.matchAll(/`([^`]+)`/g)) {
    for (const ch of s.slice(cursor, m.index)) add(ch);
    add(m[1]!);
    cursor = m.index! + m[0].length;
  }
  for (const ch of s.slice(cursor)) add(ch);
  return out.sort((a, b) => b.length - a.length);
}

/** An alternation of the delimiters, escaped; "" when there are none. */
export function delimiterPattern(delimiters: readonly string[]): string {
  return delimiters.filter(Boolean).map(escapeRegex).join('|');
}

/** Only the backtick-wrapped delimiters (TokenChunker's `delimiters`: bare ones do not split). */
export function wrappedDelimiterPattern(delimiters: readonly string[]): string {
  const custom = new Set<string>();
  for (const m of delimiters.join('').matchAll(/`([^`]+)`/g)) custom.add(m[1]!);
  return delimiterPattern([...custom].sort((a, b) => b.length - a.length));
}

/** Splits at the pattern, dropping the delimiters and empty pieces (whitespace-only pieces stay). */
export function splitByPattern(text: string, pattern: string): string[] {
  if (!pattern) return [text];
  return text.split(new RegExp(pattern, 's')).filter((piece) => piece !== '');
}

/** The tail of `prev` (tags removed) that overlaps into the next chunk. */
export function overlapPrefix(prev: string, percent: number): string {
  const visible = removeTag(prev);
  if (!visible) return '';
  const start = Math.trunc((visible.length * (100 - percent)) / 100);
  return start >= 0 && start < visible.length ? visible.slice(start) : '';
}

/** RAGFlow's `normalize_overlapped_percent`: a fraction (0, 1) reads as a percentage; whole percent, 0..90. */
export function overlapPercent(value: number): number {
  let v = Number.isFinite(value) ? value : 0;
  if (v > 0 && v < 1) v *= 100;
  return Math.max(0, Math.min(Math.trunc(v), 90));
}

/**
 * RAGFlow's `merge_paragraphs` (OVER_CAP strategy): paragraphs are grouped while the running size
 * stays within the (overlap-scaled) budget — one paragraph may overflow it, and a paragraph larger
 * than the budget stands alone.
 */
export function mergeParagraphs(paragraphs: readonly string[], chunkTokens: number, percent = 0): string[][] {
  const threshold = (chunkTokens * (100 - percent)) / 100;
  const groups: string[][] = [];
  let cur: string[] = [];
  let curTokens = 0;
  for (const p of paragraphs) {
    const t = tokens(p);
    if (t > chunkTokens) {
      if (cur.length > 0) groups.push(cur);
      groups.push([p]);
      cur = [];
      curTokens = 0;
    } else if (cur.length === 0) {
      cur = [p];
      curTokens = t;
    } else if (curTokens > threshold) {
      groups.push(cur);
      cur = [p];
      curTokens = t;
    } else {
      cur.push(p);
      curTokens += t;
    }
  }
  if (cur.length > 0) groups.push(cur);
  return groups;
}

/** RAGFlow's `TxtParser`: split at the delimiters keeping each with its piece, pieces merged to the budget and joined by line breaks. */
export function textSections(text: string, chunkTokens: number, delimiter: string): string[] {
  const pattern = delimiterPattern(parseDelimiterField(delimiter));
  const source = normalizeNewlines(text);
  if (!pattern) return source ? [source] : [];
  const parts = source.split(new RegExp(`(${pattern})`, 's'));
  const whole = new RegExp(`^(?:${pattern})$`, 's');
  const paragraphs: string[] = [];
  parts.forEach((part, i) => {
    if (!part || whole.test(part)) return;
    const next = parts[i + 1];
    paragraphs.push(next !== undefined && whole.test(next) ? part + next : part);
  });
  return mergeParagraphs(paragraphs, chunkTokens).map((g) => g.join('\n'));
}

/**
 * RAGFlow's `naive_merge` (OVER_CAP strategy): with a backtick-wrapped delimiter every segment is
 * a chunk; otherwise the text is split at the delimiters into paragraphs, which are merged while
 * the running size stays within the (overlap-scaled) budget — one paragraph may overflow it, a
 * paragraph larger than the budget stands alone — and each chunk after the first starts with the
 * previous chunk's tail. Chunks start with "\n" as RAGFlow's do (callers strip).
 */
export function naiveMerge(text: string, chunkTokens: number, delimiter: string, percent = 0): string[] {
  if (!text) return [];
  const section = normalizeNewlines(text);
  const parsed = parseDelimiterField(delimiter);
  const pattern = delimiterPattern(parsed);
  if (/`[^`]+`/.test(delimiter)) {
    return splitByPattern(section, pattern).map((s) => `\n${s}`);
  }
  const paragraphs = (pattern ? splitByPattern(section, pattern) : [section]).map((s) => `\n${s}`);
  const groups = mergeParagraphs(paragraphs, chunkTokens, percent).map((g) => g.join(''));
  if (percent <= 0) return groups;
  const out: string[] = [];
  groups.forEach((g, i) => out.push(i === 0 ? g : overlapPrefix(out[i - 1]!, percent) + g));
  return out;
}
