/**
 * Chunking, RAGFlow's "naive" method: text is cut into sentences at the delimiters and merged
 * into chunks of about `chunk_token_num` tokens, optionally overlapping; chunks never cross a
 * heading, and each starts with its heading path so a chunk keeps its context ("keep titles").
 */
import { countTokens } from '../text/tokens';

export interface Section {
  /** Heading path, outermost first (`["Guide", "Install"]`). */
  headings: string[];
  text: string;
}

export interface ChunkDraft {
  content: string;
  /** The heading path, joined with " > ". */
  section: string;
  position: number;
  tokens: number;
}

export interface ChunkingOptions {
  /** Target size in tokens (RAGFlow's `chunk_token_num`, default 512). */
  chunkTokens?: number;
  /** Share of a chunk repeated at the start of the next (RAGFlow's `overlapped_percent`, 0-90). */
  overlapPercent?: number;
  /** Characters that end a sentence (RAGFlow's `delimiter`). */
  delimiter?: string;
}

const DEFAULT_DELIMITER = '\n!?;。；！？';

/** Sections of a Markdown text, split at ATX headings (`#`..`######`). */
export function markdownSections(md: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let body: string[] = [];
  const flush = () => {
    const text = body.join('\n').trim();
    if (text) sections.push({ headings: [...path], text });
    body = [];
  };
  for (const line of md.split(/\r?\n/)) {
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!h) {
      body.push(line);
      continue;
    }
    flush();
    const level = h[1]!.length;
    path.splice(level - 1);
    while (path.length < level - 1) path.push('');
    path.push(h[2]!.trim());
  }
  flush();
  return sections;
}

/** Sentences, each keeping its closing delimiter. */
function sentences(text: string, delimiter: string): string[] {
  const chars = new Set([...delimiter.replace(/\\n/g, '\n')]);
  const out: string[] = [];
  let cur = '';
  for (const c of text) {
    cur += c;
    if (chars.has(c)) {
      if (cur.trim()) out.push(cur);
      cur = '';
    }
  }
  if (cur.trim()) out.push(cur);
  return out;
}

/** Cuts sections into chunks. */
export function chunkSections(sections: readonly Section[], opts: ChunkingOptions = {}): ChunkDraft[] {
  const size = Math.max(16, opts.chunkTokens ?? 512);
  const overlap = Math.min(0.9, Math.max(0, (opts.overlapPercent ?? 0) / 100));
  const delimiter = opts.delimiter || DEFAULT_DELIMITER;
  const chunks: ChunkDraft[] = [];
  for (const section of sections) {
    const heading = section.headings.filter(Boolean).join(' > ');
    const prefix = heading ? `${heading}\n` : '';
    let cur: string[] = [];
    let curTokens = 0;
    const emit = () => {
      const body = cur.join('').trim();
      if (!body) return;
      const content = prefix + body;
      chunks.push({ content, section: heading, position: chunks.length, tokens: countTokens(content) });
    };
    for (const s of sentences(section.text, delimiter)) {
      const t = countTokens(s);
      if (curTokens > 0 && curTokens + t > size) {
        emit();
        // Carry the tail of the chunk into the next one, whole sentences only.
        const kept: string[] = [];
        let keptTokens = 0;
        for (let i = cur.length - 1; i >= 0 && overlap > 0; i--) {
          const n = countTokens(cur[i]!);
          if (keptTokens + n > size * overlap) break;
          kept.unshift(cur[i]!);
          keptTokens += n;
        }
        cur = kept;
        curTokens = keptTokens;
      }
      cur.push(s);
      curTokens += t;
    }
    emit();
  }
  return chunks;
}
