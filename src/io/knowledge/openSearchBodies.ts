/**
 * What agent-canvas sends to OpenSearch, as plain data: the index layout, the stored form of an
 * embedding and the two candidate queries. src/io/knowledge/openSearchIndex.ts does the I/O.
 *
 * Layout: one index per embedding dimension (`<prefix>-chunks-<dim>`), because a `knn_vector`
 * field has a fixed dimension and datasets may use models of different sizes. Every chunk keeps
 * its normalized embedding as little-endian float32 bytes in a `binary` doc-values field, which
 * core OpenSearch can read in Painless: exact cosine scoring works on any cluster, and the cosine
 * of each keyword hit is computed from it. Where the k-NN plugin exists, `embedding_knn` (HNSW,
 * Lucene engine, cosine) adds approximate vector search.
 */
import type { API, Types } from '@opensearch-project/opensearch';
import type { ChunkHit, ChunkSearch, DocumentRecord, NewChunk } from '../store/knowledgeTypes';

type Query = Types.Common_QueryDsl.QueryContainer;
type SearchBody = API.Search_RequestBody;

/** The name of the index holding chunks whose embeddings have `dim` dimensions. */
export function indexName(prefix: string, dim: number): string {
  return `${prefix}-chunks-${dim}`;
}

/** Every chunk index of a prefix (for deletes, which do not know the dimension). */
export function indexPattern(prefix: string): string {
  return `${prefix}-chunks-*`;
}

/**
 * Settings and mappings of a chunk index; `knn` adds the k-NN plugin's vector field. Plain data:
 * the client's types know neither `cjk_bigram` nor `knn_vector`.
 */
export function indexBody(dim: number, knn: boolean): Record<string, unknown> {
  return {
    settings: {
      index: {
        ...(knn ? { knn: true } : {}),
        analysis: {
          // Words for alphabetic scripts; CJK (no spaces) as characters and character pairs, like
          // src/io/text/tokens.ts tokenizes for keyword similarity. No stemming, as PostgreSQL's
          // 'simple' configuration does not stem either.
          filter: { cjk_pairs: { type: 'cjk_bigram', output_unigrams: true }, english_stop: { type: 'stop', stopwords: '_english_' } },
          analyzer: { mixed: { type: 'custom', tokenizer: 'standard', filter: ['cjk_width', 'lowercase', 'cjk_pairs', 'english_stop'] } },
        },
      },
    },
    mappings: {
      dynamic: 'strict',
      // PostgreSQL keeps every chunk and its embedding: the vectors need not be in _source too.
      _source: { excludes: ['embedding', 'embedding_knn'] },
      properties: {
        tenant_id: { type: 'keyword' },
        dataset_id: { type: 'keyword' },
        document_id: { type: 'keyword' },
        document_name: { type: 'keyword', index: false, doc_values: false },
        content: { type: 'text', analyzer: 'mixed' },
        section: { type: 'keyword', index: false, doc_values: false },
        position: { type: 'integer' },
        embedding: { type: 'binary', doc_values: true },
        ...(knn
          ? {
              embedding_knn: {
                type: 'knn_vector',
                dimension: dim,
                method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil', parameters: { m: 16, ef_construction: 128 } },
              },
            }
          : {}),
      },
    },
  };
}

/** A normalized vector as little-endian float32 bytes, base64 (a `binary` field's form). */
export function encodeVector(v: readonly number[]): string {
  const bytes = new DataView(new ArrayBuffer(v.length * 4));
  v.forEach((x, i) => bytes.setFloat32(i * 4, Number.isFinite(x) ? x : 0, true));
  return Buffer.from(bytes.buffer).toString('base64');
}

/** The indexed form of a chunk. */
export function chunkDocument(
  doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id' | 'name'>,
  chunk: NewChunk,
  normalized: readonly number[],
  knn: boolean,
): Record<string, unknown> {
  const nonZero = normalized.some((x) => x !== 0);
  return {
    tenant_id: doc.tenant_id,
    dataset_id: doc.dataset_id,
    document_id: doc.id,
    document_name: doc.name,
    content: chunk.content,
    section: chunk.section,
    position: chunk.position,
    embedding: encodeVector(normalized),
    // Cosine space rejects zero vectors; such a chunk (no terms at all) is left to the keyword side.
    ...(knn && nonZero ? { embedding_knn: normalized } : {}),
  };
}

/**
 * Dot product of the stored (normalized) embedding with `params.q` (the normalized query) plus
 * `params.shift`: the cosine similarity, shifted by 1 where it serves as a score (scores must not
 * be negative). Decodes the float32 bytes by hand: core Painless has no vector type.
 */
const DOT_SCRIPT = [
  "if (doc['embedding'].size() == 0) { return params.shift; }",
  "def r = doc['embedding'].value; byte[] b = r.bytes; int o = r.offset; List q = params.q; double dot = 0;",
  'int n = (int) Math.min(q.size(), r.length / 4);',
  'for (int i = 0; i < n; ++i) { int j = o + 4 * i;',
  '  dot += Float.intBitsToFloat((b[j] & 255) | ((b[j + 1] & 255) << 8) | ((b[j + 2] & 255) << 16) | ((b[j + 3] & 255) << 24)) * (double) q.get(i); }',
  'return params.shift + dot;',
].join('\n');

function dotScript(q: readonly number[], shift: number): Types.Common.Script {
  return { source: DOT_SCRIPT, lang: 'painless', params: { q, shift } };
}

/** Tenant, datasets and (optionally) documents: the filter every candidate query applies. */
export function searchFilter(s: ChunkSearch): Query {
  const filter: Query[] = [{ term: { tenant_id: s.tenantId } }, { terms: { dataset_id: s.datasetIds } }];
  if (s.documentIds) filter.push({ terms: { document_id: s.documentIds } });
  return { bool: { filter } };
}

/** The smallest HNSW candidate list a k-NN search explores. */
const EF_SEARCH = 100;

const SOURCE = ['content', 'document_id', 'document_name', 'dataset_id', 'section', 'position'];

/** Common parts: the fields to return and the exact cosine of each hit (computed for hits only). */
function withCosine(size: number, q: readonly number[], query: Query): SearchBody {
  return { size, track_total_hits: false, _source: SOURCE, query, script_fields: { cos: { script: dotScript(q, 0) } } };
}

/**
 * Up to `topK` chunks by vector similarity: approximate k-NN (HNSW with the filter applied during
 * the graph search) where the index has `embedding_knn`, else an exact scan scoring every
 * matching chunk in Painless.
 */
export function vectorSearchBody(s: ChunkSearch, q: readonly number[], topK: number, knn: boolean): SearchBody {
  const filter = searchFilter(s);
  // ef_search above k: Lucene's HNSW otherwise explores only k candidates, and misses some of the
  // true top k even in small graphs.
  const query: Query = knn
    ? { knn: { embedding_knn: { vector: [...q], k: topK, filter, method_parameters: { ef_search: Math.max(topK, EF_SEARCH) } } } }
    : { script_score: { query: filter, script: dotScript(q, 1) } };
  return withCosine(topK, q, query);
}

/** Up to `topK` chunks by BM25 over the content (any of the query's terms). */
export function keywordSearchBody(s: ChunkSearch, q: readonly number[], topK: number): SearchBody {
  return withCosine(topK, q, { bool: { must: [{ match: { content: { query: s.query } } }], filter: [searchFilter(s)] } });
}

interface HitSource {
  content: string;
  document_id: string;
  document_name: string;
  dataset_id: string;
  section: string;
  position: number;
}

/** A search hit as a candidate, with the cosine its script field computed. */
export function hitToChunk(hit: { _id?: string | null; _source?: unknown; fields?: Record<string, unknown> }): ChunkHit {
  const s = hit._source as HitSource;
  const cos = (hit.fields?.cos as unknown[] | undefined)?.[0];
  return {
    id: String(hit._id),
    content: s.content,
    documentId: s.document_id,
    documentName: s.document_name,
    datasetId: s.dataset_id,
    section: s.section ?? '',
    position: Number(s.position ?? 0),
    vectorSimilarity: Number(cos ?? 0),
  };
}
