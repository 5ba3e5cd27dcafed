/**
 * Search results as models read them and as citations, RAGFlow's way: chunks carry RAGFlow's
 * fields (chunk_id, content, doc_id, docnm_kwd, similarity, url...); the text block of each is
 * headed `ID: n` with n = hash(chunk_id) mod 500, and the run's reference keys the chunk by the
 * same n — so a model's `[ID:n]` citation points at its chunk in `message_end.reference`.
 */
import { createHash } from 'node:crypto';

export interface FoundDocument {
  title: string;
  url: string;
  content: string;
  score?: number;
}

/** A retrieved chunk as RAGFlow's tools hold it. */
export interface RagChunk {
  chunk_id: string;
  content: string;
  doc_id: string;
  docnm_kwd: string;
  kb_id?: string;
  similarity?: number;
  vector_similarity?: number;
  term_similarity?: number;
  url?: string | null;
  document_metadata?: Record<string, unknown> | null;
  positions?: unknown;
}

export interface DocAgg {
  doc_name: string;
  doc_id: string;
  count: number;
  url?: string | null;
}

export interface Formatted {
  text: string;
  chunks: Record<string, Record<string, unknown>>;
  docAggs: Record<string, Record<string, unknown>>;
  json: FoundDocument[];
}

const MAX_CONTENT = 10_000;

/** RAGFlow's `hash_str2int`: SHA-1 of the text, as a number, modulo `mod`. */
export function hashStr2Int(text: string, mod = 100_000_000): number {
  return Number(BigInt(`0x${createHash('sha1').update(text, 'utf8').digest('hex')}`) % BigInt(mod));
}

/** The citation id of a chunk (`[ID:n]`). */
export function citationId(chunkId: string): number {
  return hashStr2Int(chunkId, 500);
}

const line = (key: string, value: unknown) => {
  const v = value === null || value === undefined ? '' : String(value);
  return v ? `\n├── ${key}: ${v.replace(/\n+/g, ' ')}` : '';
};

/** RAGFlow's `kb_prompt`: one block per chunk, headed by its citation id. */
export function kbPrompt(chunks: readonly RagChunk[]): string {
  return chunks
    .map((c) => {
      let block = `\nID: ${citationId(c.chunk_id)}${line('Title', c.docnm_kwd)}${line('URL', c.url)}`;
      for (const [k, v] of Object.entries(c.document_metadata ?? {})) block += line(k, typeof v === 'string' ? v : JSON.stringify(v));
      return `${block}\n└── Content:\n${c.content}`;
    })
    .join('\n');
}

/** The run reference for chunks (RAGFlow's `chunks_format`, keyed by citation id) and their documents. */
export function referenceOf(
  chunks: readonly RagChunk[],
  aggs: readonly DocAgg[],
): { chunks: Record<string, Record<string, unknown>>; doc_aggs: Record<string, Record<string, unknown>> } {
  const out = { chunks: {} as Record<string, Record<string, unknown>>, doc_aggs: {} as Record<string, Record<string, unknown>> };
  for (const c of chunks) {
    const key = String(citationId(c.chunk_id));
    if (key in out.chunks) continue;
    out.chunks[key] = {
      id: c.chunk_id,
      content: c.content,
      document_id: c.doc_id,
      document_name: c.docnm_kwd,
      dataset_id: c.kb_id ?? null,
      image_id: null,
      positions: c.positions ?? [],
      url: c.url ?? null,
      similarity: c.similarity ?? null,
      vector_similarity: c.vector_similarity ?? null,
      term_similarity: c.term_similarity ?? null,
      doc_type: null,
      document_metadata: c.document_metadata ?? null,
    };
  }
  for (const a of aggs) out.doc_aggs[a.doc_name] ??= { ...a };
  return out;
}

/** Web search results as chunks (RAGFlow's `ToolBase._retrieve_chunks`). */
export function formatDocuments(docs: FoundDocument[]): Formatted {
  const chunks: RagChunk[] = [];
  const aggs: DocAgg[] = [];
  const json: FoundDocument[] = [];
  for (const d of docs) {
    const content = d.content
      .replace(/!?\[[a-z]*\]\(data:image\/[a-z]+;base64,[^)]*\)/gi, '')
      .slice(0, MAX_CONTENT)
      .trim();
    if (!content) continue;
    const id = String(hashStr2Int(content));
    chunks.push({ chunk_id: id, content, doc_id: id, docnm_kwd: d.title, similarity: d.score ?? 1, url: d.url });
    aggs.push({ doc_name: d.title || d.url, doc_id: id, count: 1, url: d.url });
    json.push({ ...d, content });
  }
  const ref = referenceOf(chunks, aggs);
  return { text: kbPrompt(chunks), chunks: ref.chunks, docAggs: ref.doc_aggs, json };
}
