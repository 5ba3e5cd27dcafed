/**
 * TitleChunker, as RAGFlow's `rag/flow/chunker/title_chunker/` behaves: the input becomes line
 * records (text lines, or JSON items with their type and coordinates); the `levels` family that
 * matches most lines gives each line its heading level (a title-like layout line the level below
 * the family's; everything else is body); then
 * - `hierarchy`: a tree of headings down to the `hierarchy`-th level present, one chunk per leaf
 *   holding its heading path and body (`include_heading_content` gives headings with body their own chunk);
 * - `group`: consecutive records of one section grouped, small groups absorbing the next record;
 * `root_chunk_as_heading` prefixes the first chunk to the others; finally no text chunk exceeds
 * `chunk_token_cap` tokens (re-split at sentences, then hard-split; the coordinates stay on the
 * first piece). RAGFlow can also take levels from a PDF's outline; the text layer read here has
 * none, so levels always come from the patterns.
 */
import type { TitleChunkerParams } from '../../../core/pipeline/components/TitleChunker';
import { pyMatchRegex } from '../../../core/pipeline/pyRegex';
import type { PipelineChunk, PipelinePayload } from './contract';
import { removeTag, tokens } from './merge';
import { finalizePositions, mergePositions, PDF_POSITIONS_KEY, positionsOf, type Position } from './positions';

const BODY = Number.MAX_SAFE_INTEGER;
const MIN_GROUP_TOKENS = 32;

export interface LineRecord {
  text: string;
  kind: string;
  img_id?: unknown;
  layout: string;
  positions: Position[];
}

/** RAGFlow's `not_bullet`: numbers that look like headings but are not. */
function notBullet(line: string): boolean {
  return [/^0/, /^[0-9]+ +[0-9~个只-]/, /^[0-9]+\.{2,}/, /^[0-9]+(\.[0-9]+){2,}[的中]/].some((r) => r.test(line));
}

/** RAGFlow's `not_title`: too long or punctuated like a sentence. */
function notTitle(text: string): boolean {
  if (/^第[零一二三四五六七八九十百0-9]+条/.test(text)) return false;
  if (text.split(/\s+/).filter(Boolean).length > 12 || (!text.includes(' ') && text.length >= 32)) return true;
  return /[,;，。；！!]/.test(text);
}

function lineRecords(input: PipelinePayload): LineRecord[] {
  const format = input.output_format;
  if (format === 'markdown' || format === 'text' || format === 'html') {
    const lines = (input[format] ?? '').split('\n');
    const kept = format === 'text' ? lines.map((l) => l.trim()).filter(Boolean) : lines.filter((l) => l.trim());
    return kept.map((text) => ({ text, kind: 'text', layout: '', positions: [] }));
  }
  const items = ((format === 'chunks' ? input.chunks : input.json) ?? []) as Array<Record<string, unknown>>;
  return items.map((item) => ({
    text: typeof item.text === 'string' ? item.text : '',
    kind: String(item.doc_type_kwd || 'text'),
    img_id: item.img_id,
    layout: `${String(item.layout_type ?? '')} ${String(item.layoutno ?? '')}`.trim(),
    positions: positionsOf(item),
  }));
}

/** The family of patterns that matches most lines (ties: the first). */
function selectFamily(lines: string[], families: string[][]): RegExp[] {
  let best = -1;
  let max = 0;
  families.forEach((family, i) => {
    const res = family.map((p) => pyMatchRegex(p));
    let hits = 0;
    for (const raw of lines) {
      const line = raw.trim();
      if (line && res.some((r) => r.test(line)) && !notBullet(line)) hits += 1;
    }
    if (hits > max) {
      max = hits;
      best = i;
    }
  });
  return best < 0 ? [] : families[best]!.filter(Boolean).map((p) => pyMatchRegex(p));
}

function resolveLevels(records: LineRecord[], families: string[][]): { levels: number[]; most: number | null } {
  const family = selectFamily(
    records.map((r) => r.text),
    families,
  );
  const fallback = family.length + 1;
  const levels = records.map((r) => {
    if (r.kind !== 'text') return BODY;
    const line = r.text.trim();
    const i = family.findIndex((re) => re.test(line) && !notBullet(line));
    if (i >= 0) return i + 1;
    return /(section|title|head)/i.test(r.layout) && !notTitle(r.text.split('@')[0]!.trim()) ? fallback : BODY;
  });
  const counts = new Map<number, number>();
  for (const l of levels) counts.set(l, (counts.get(l) ?? 0) + 1);
  const most = [...counts.entries()].sort((a, b) => b[1] - a[1]).find(([l]) => l < BODY)?.[0] ?? null;
  return { levels, most };
}

function targetLevel(levels: number[], hierarchy: number): number | null {
  const titles = [...new Set(levels.filter((l) => l > 0 && l < BODY))].sort((a, b) => a - b);
  if (titles.length === 0) return null;
  return titles[Math.min(Math.max(Math.trunc(hierarchy), 1), titles.length) - 1]!;
}

interface Node {
  level: number;
  titles: number[];
  body: number[];
  children: Node[];
}

function hierarchyPaths(levels: number[], depth: number, includeHeading: boolean): number[][] {
  const root: Node = { level: 0, titles: [], body: [], children: [] };
  const stack = [root];
  levels.forEach((level, index) => {
    if (level > depth) {
      stack[stack.length - 1]!.body.push(index);
      return;
    }
    while (stack.length > 1 && level <= stack[stack.length - 1]!.level) stack.pop();
    const node: Node = { level, titles: [index], body: [], children: [] };
    stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  });
  const paths: number[][] = [];
  const dfs = (node: Node, titles: number[]) => {
    if (node.level === 0 && node.body.length > 0) paths.push([...titles, ...node.body]);
    const inRange = node.level >= 1 && node.level <= depth;
    let pathTitles: number[];
    if (includeHeading) {
      pathTitles = inRange ? [...titles, ...node.titles] : titles;
      if (node.body.length > 0 && inRange) paths.push([...pathTitles, ...node.body]);
      else if (node.children.length === 0 && inRange) paths.push(pathTitles);
    } else {
      pathTitles = inRange ? [...titles, ...node.titles, ...node.body] : titles;
      if (node.children.length === 0 && inRange) paths.push(pathTitles);
    }
    for (const child of node.children) dfs(child, pathTitles);
  };
  dfs(root, []);
  return paths;
}

function hierarchyGroups(records: LineRecord[], levels: number[], hierarchy: number, includeHeading: boolean): LineRecord[][] {
  const groups: LineRecord[][] = [];
  let text: LineRecord[] = [];
  let textLevels: number[] = [];
  const flush = () => {
    if (text.length === 0) return;
    const target = targetLevel(textLevels, hierarchy);
    if (target === null) groups.push([...text]);
    else for (const path of hierarchyPaths(textLevels, target, includeHeading)) if (path.length > 0) groups.push(path.map((i) => text[i]!));
    text = [];
    textLevels = [];
  };
  records.forEach((r, i) => {
    if (r.kind === 'text') {
      text.push(r);
      textLevels.push(levels[i]!);
      return;
    }
    flush();
    groups.push([r]);
  });
  flush();
  return groups;
}

function groupGroups(records: LineRecord[], levels: number[], hierarchy: number | null, most: number | null, cap: number): LineRecord[][] {
  const target = hierarchy && hierarchy > 0 ? targetLevel(levels, hierarchy) : most;
  let sid = 0;
  const sections = levels.map((l, i) => (target !== null && l <= target && i > 0 ? ++sid : sid));
  const groups: LineRecord[][] = [];
  let count = 0;
  let lastSid = -2;
  records.forEach((r, i) => {
    if (r.kind !== 'text') {
      groups.push([r]);
      count = 0;
      lastSid = -2;
      return;
    }
    if (!r.text.trim()) return;
    const t = tokens(r.text);
    const last = groups[groups.length - 1];
    const merge = last !== undefined && last[0]!.kind === 'text' && (count < MIN_GROUP_TOKENS || ((cap <= 0 || count < cap) && sections[i] === lastSid));
    if (merge) {
      last.push(r);
      count += t;
    } else {
      groups.push([r]);
      count = t;
    }
    lastSid = sections[i]!;
  });
  return groups;
}

function sentences(text: string): string[] {
  const parts = text.split(/([。!?？；！\n]|\. )/s);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const piece = parts[i]! + (parts[i + 1] ?? '');
    if (piece) out.push(piece);
  }
  return out;
}

/** Prefixes of at most `cap` tokens (counted as `tokens` does), losing nothing. */
function hardSplit(text: string, cap: number): string[] {
  const out: string[] = [];
  const parts = text.match(/\s*(?:[\p{L}\p{N}]+|[^\s\p{L}\p{N}])\s*/gu) ?? [text];
  let cur = '';
  for (const part of parts) {
    if (cur && tokens(cur + part) > cap) {
      out.push(cur);
      cur = '';
    }
    // A single word longer than the cap in CJK characters: split it by characters.
    if (tokens(part) > cap) {
      for (const ch of part) {
        if (cur && tokens(cur + ch) > cap) {
          out.push(cur);
          cur = '';
        }
        cur += ch;
      }
      continue;
    }
    cur += part;
  }
  if (cur) out.push(cur);
  return out.join('') === text ? out : [text];
}

/** Re-splits chunks over the cap: at sentences first, then hard. */
export function enforceTokenCap(chunks: PipelineChunk[], cap: number): PipelineChunk[] {
  if (!cap || cap <= 0) return chunks;
  const out: PipelineChunk[] = [];
  for (const chunk of chunks) {
    if ((chunk.doc_type_kwd ?? 'text') !== 'text' || tokens(chunk.text) <= cap) {
      out.push(chunk);
      continue;
    }
    const groups: string[] = [];
    let cur = '';
    for (const s of sentences(chunk.text)) {
      const candidate = cur + s;
      if (cur && tokens(candidate) > cap) {
        groups.push(cur);
        cur = s;
      } else cur = candidate;
    }
    if (cur) groups.push(cur);
    const pieces = groups.flatMap((g) => (tokens(g) <= cap ? [g] : hardSplit(g, cap)));
    pieces.forEach((text, i) => {
      const sub: PipelineChunk = { ...chunk, text };
      if (PDF_POSITIONS_KEY in chunk && i > 0) sub[PDF_POSITIONS_KEY] = [];
      out.push(sub);
    });
  }
  return out;
}

/** The chunks TitleChunker makes of its input; `reorder` rearranges the records first (ManualChunker's reading order). */
export function titleChunks(p: TitleChunkerParams, input: PipelinePayload, reorder?: (records: LineRecord[]) => LineRecord[]): PipelineChunk[] {
  const records = reorder ? reorder(lineRecords(input)) : lineRecords(input);
  const { levels, most } = resolveLevels(records, p.levels);
  const groups =
    p.method === 'group'
      ? groupGroups(records, levels, p.hierarchy, most, p.chunk_token_cap)
      : hierarchyGroups(records, levels, p.hierarchy ?? 1, p.include_heading_content);
  const textual = input.output_format === 'markdown' || input.output_format === 'text' || input.output_format === 'html';
  let chunks: PipelineChunk[] = groups
    .filter((g) => g.length > 0)
    .map((g) => {
      const text = g.map((r) => `${r.text}\n`).join('');
      if (textual) return { text };
      if (g[0]!.kind === 'text')
        return { text: removeTag(text), doc_type_kwd: 'text', [PDF_POSITIONS_KEY]: mergePositions(g.map((r) => ({ [PDF_POSITIONS_KEY]: r.positions }))) };
      return { text: g[0]!.text, doc_type_kwd: g[0]!.kind, img_id: g[0]!.img_id, [PDF_POSITIONS_KEY]: g[0]!.positions };
    });
  if (p.root_chunk_as_heading && chunks.length > 1) {
    const root = chunks[0]!.text;
    chunks = chunks.slice(1).map((c) => ({ ...c, text: `${root}\n${c.text}` }));
  }
  chunks = enforceTokenCap(chunks, p.chunk_token_cap);
  return textual ? chunks : chunks.map((c) => finalizePositions(c));
}
