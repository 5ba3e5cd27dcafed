/**
 * Search results as the model reads them and as citations: RAGFlow's chunk fields (chunk_id,
 * content, docnm_kwd, url...) and doc aggregates, and a numbered text block per result.
 */
import { createHash } from 'node:crypto';

export interface FoundDocument {
  title: string;
  url: string;
  content: string;
  score?: number;
}

export interface Formatted {
  text: string;
  chunks: Record<string, Record<string, unknown>>;
  docAggs: Record<string, Record<string, unknown>>;
  json: FoundDocument[];
}

const MAX_CONTENT = 10_000;

function chunkId(content: string): string {
  return createHash('sha1').update(content).digest('hex').slice(0, 16);
}

export function formatDocuments(docs: FoundDocument[]): Formatted {
  const out: Formatted = { text: '', chunks: {}, docAggs: {}, json: [] };
  const blocks: string[] = [];
  for (const d of docs) {
    const content = d.content.replace(/!?\[[a-z]*\]\(data:image\/[a-z]+;base64,[^)]*\)/gi, '').slice(0, MAX_CONTENT).trim();
    if (!content) continue;
    const id = chunkId(content);
    out.chunks[id] = { chunk_id: id, content, doc_id: id, docnm_kwd: d.title, similarity: d.score ?? 1, url: d.url };
    out.docAggs[d.title || d.url] = { doc_name: d.title || d.url, doc_id: id, count: 1, url: d.url };
    out.json.push({ ...d, content });
    blocks.push(`ID: ${blocks.length}\n├── Title: ${d.title}\n├── URL: ${d.url}\n└── Content:\n${content}`);
  }
  out.text = blocks.join('\n\n');
  return out;
}
