/**
 * The Go Extractor's `tags` section (RAGFlow's `extractor_tag.go`): a tag file (`.csv`, `.txt`
 * or `.xlsx`: rows of text content and its comma-separated tags) is the tag set and its examples.
 * A chunk whose words overlap an example's by at least half (Jaccard) takes that example's tags,
 * weighted by how rare each tag is in the set; every other chunk is tagged by the model, shown the
 * tag set and up to two matched chunks as examples. The result is `tag_feas` (`{tag: score}`, top
 * `top_n`). RAGFlow picks the two examples at random; here the first two are taken so a retried
 * batch asks the same question.
 */
import { tokenize } from '../../text/tokens';
import { readSheets } from '../../text/sheets';
import { detectDelimiter } from './qaText';

export interface TagLabel {
  content: string;
  tags: string[];
}

export interface TagSource {
  examples: TagLabel[];
  /** Each tag's smoothed share of all tag uses (RAGFlow's `buildAllTagsProportions`). */
  allTags: Map<string, number>;
  exampleWords: Array<Set<string>>;
}

const S = 1000;
const splitTrim = (s: string, sep: string) =>
  s
    .split(sep)
    .map((t) => t.trim())
    .filter(Boolean);

/** Rows of `content<delimiter>tags`; a line that is not one continues the next example's content. */
function delimitedLabels(lines: string[], split: (line: string) => string[] | null): TagLabel[] {
  const out: TagLabel[] = [];
  let content = '';
  for (const line of lines) {
    const row = split(line);
    if (!row || row.length !== 2) {
      content = content ? `${content}\n${line}` : line;
      continue;
    }
    content = content ? `${content}\n${row[0]}` : row[0]!;
    out.push({ content, tags: splitTrim(row[1]!, ',') });
    content = '';
  }
  return out;
}

/** One CSV line's fields (quotes honoured), empty fields dropped, or null when the quotes do not close. */
function csvLine(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    let field = '';
    if (line[i] === '"') {
      const end = line.indexOf('"', i + 1);
      if (end < 0) return null;
      field = line.slice(i + 1, end);
      i = end + 1;
      while (line[i] === '"') {
        const next = line.indexOf('"', i + 1);
        if (next < 0) return null;
        field += `"${line.slice(i + 1, next)}`;
        i = next + 1;
      }
    } else {
      const end = line.indexOf(',', i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    if (line[i] !== ',') break;
    i += 1;
  }
  return fields.map((f) => f.trim()).filter(Boolean);
}

/** The examples of a tag file, read by its extension as RAGFlow reads it; null for another kind of file. */
export async function parseTagSource(name: string, bytes: Uint8Array): Promise<TagLabel[] | null> {
  const ext = (name.split('.').pop() ?? '').toLowerCase();
  if (ext === 'xlsx') {
    const out: TagLabel[] = [];
    for (const rows of Object.values(await readSheets(bytes, name))) {
      const header = rows.length > 0 ? Object.keys(rows[0]!) : [];
      for (const cells of [header, ...rows.map((r) => Object.values(r).map((v) => (v === null || v === undefined ? '' : String(v))))]) {
        const kept = cells.map((c) => c.trim()).filter(Boolean);
        if (kept.length >= 2) out.push({ content: kept[0]!, tags: splitTrim(kept[1]!, ',') });
      }
    }
    return out;
  }
  const text = new TextDecoder().decode(bytes).replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (ext === 'csv') return delimitedLabels(lines, csvLine);
  if (ext === 'txt') {
    const delimiter = detectDelimiter(lines);
    return delimitedLabels(lines, (line) => line.split(delimiter));
  }
  return null;
}

export function indexTagSource(examples: TagLabel[]): TagSource {
  const counts = new Map<string, number>();
  let total = 0;
  for (const ex of examples)
    for (const raw of ex.tags) {
      const t = raw.trim();
      if (!t) continue;
      counts.set(t, (counts.get(t) ?? 0) + 1);
      total += 1;
    }
  const allTags = new Map([...counts].map(([t, c]) => [t, (c + 1) / (total + S)]));
  return { examples, allTags, exampleWords: examples.map((ex) => new Set(tokenize(ex.content))) };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let both = 0;
  for (const w of a) if (b.has(w)) both += 1;
  return both / (a.size + b.size - both);
}

/** The tags of the example a chunk matches (overlap ≥ 0.5), weighted; null when none matches. */
export function matchTags(text: string, source: TagSource, topN: number): Record<string, number> | null {
  const words = new Set(tokenize(text));
  let best: TagLabel | null = null;
  let bestScore = 0;
  source.examples.forEach((ex, i) => {
    const score = jaccard(words, source.exampleWords[i]!);
    if (score > bestScore && score >= 0.5) {
      bestScore = score;
      best = ex;
    }
  });
  if (!best) return null;
  const tags = (best as TagLabel).tags.map((t) => t.trim()).filter(Boolean);
  const scored = tags
    .map((t) => ({ t, s: Math.round((0.1 * 2) / ((best as TagLabel).tags.length + S) / Math.max(1e-6, source.allTags.get(t) || 0.0001)) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, topN);
  if (scored.length === 0) return null;
  return Object.fromEntries(scored.map(({ t, s }) => [t.replace(/\./g, '_'), s]));
}

/** The model's `{tag: score}` answer: positive whole scores, the `topN` highest. */
export function parseTaggerAnswer(raw: string, topN: number): Record<string, number> | null {
  const answer = raw.replace(/^[\s\S]*<\/think>/, '').trim();
  if (answer.includes('**ERROR**')) return null;
  const unfenced = answer.replace(/^```(?:json)?\s*/i, '').replace(/```\s*$/, '');
  const start = unfenced.indexOf('{');
  const end = unfenced.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(unfenced.slice(start, end + 1));
  } catch {
    return null;
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null;
  const entries = Object.entries(obj as Record<string, unknown>)
    .map(([k, v]) => [k, typeof v === 'number' ? Math.trunc(v) : 0] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN);
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}
