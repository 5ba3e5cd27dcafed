/** Datasets, documents and chunks (RAGFlow's knowledge bases), as stored. */

/** RAGFlow's document run states. */
export type DocumentRun = 'UNSTART' | 'RUNNING' | 'CANCEL' | 'DONE' | 'FAIL';

export interface DatasetRecord {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  avatar: string | null;
  embedding_model: string;
  chunk_method: string;
  parser_config: Record<string, unknown>;
  permission: string;
  pagerank: number;
  language: string;
  connectors: unknown[];
  /** The ingestion pipeline canvas its documents run through (RAGFlow's `pipeline_id`); null: the built-in indexing. */
  pipeline_id: string | null;
  document_count: number;
  chunk_count: number;
  token_num: number;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface NewDataset {
  /** A chosen id (importing a canvas's datasets); a new one otherwise. */
  id?: string;
  tenantId: string;
  name: string;
  description?: string | null;
  avatar?: string | null;
  embeddingModel: string;
  chunkMethod: string;
  parserConfig: Record<string, unknown>;
  permission?: string;
  pagerank?: number;
  language?: string;
  pipelineId?: string | null;
}

export interface DocumentRecord {
  id: string;
  dataset_id: string;
  tenant_id: string;
  name: string;
  type: string;
  size: number;
  run: DocumentRun;
  progress: number;
  progress_msg: string;
  chunk_count: number;
  token_count: number;
  meta_fields: Record<string, unknown>;
  /** The document's own chunk method; null: its dataset's. */
  chunk_method: string | null;
  parser_config: Record<string, unknown>;
  /** RAGFlow's enabled flag: '1' or '0'. */
  status: string;
  process_begin_at: number | null;
  process_duration: number;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface NewChunk {
  id: string;
  content: string;
  section: string;
  position: number;
  tokens: number;
  embedding: number[];
  /** RAGFlow's `important_kwd` (an ingestion pipeline's Extractor may write them). */
  importantKeywords?: string[];
  /** RAGFlow's `question_kwd`. */
  questions?: string[];
  /** Further fields a pipeline wrote (summary, metadata…), kept as jsonb. */
  extra?: Record<string, unknown>;
}

/** A chunk found by a search backend, before hybrid ranking (src/io/knowledge/hybrid.ts). */
export interface ChunkHit {
  id: string;
  content: string;
  documentId: string;
  documentName: string;
  datasetId: string;
  section: string;
  position: number;
  /** Cosine similarity between the query's and the chunk's embeddings. */
  vectorSimilarity: number;
  url?: string | null;
  meta?: Record<string, unknown>;
}

/** A chunk as listed: its text and RAGFlow's editable fields. */
export interface ChunkRecord extends ChunkHit {
  tokens: number;
  importantKeywords: string[];
  questions: string[];
  available: boolean;
  createTime: number;
}

export interface ChunkEdit {
  content?: string;
  importantKeywords?: string[];
  questions?: string[];
  available?: boolean;
  tokens?: number;
  embedding?: number[];
}

export interface ChunkSearch {
  tenantId: string;
  datasetIds: string[];
  /** Restrict to these documents (a metadata filter's result); undefined: all. */
  documentIds?: string[];
  query: string;
  embedding: number[];
  /** Candidates per method (RAGFlow's `top_k`). */
  topK: number;
}

export interface KnowledgeStore {
  datasets: {
    create(input: NewDataset): Promise<DatasetRecord>;
    get(tenantId: string, id: string): Promise<DatasetRecord | null>;
    /** By id, or by name (case-insensitive), within the tenant. */
    find(tenantId: string, idOrName: string): Promise<DatasetRecord | null>;
    list(
      tenantId: string,
      opts: { page: number; pageSize: number; orderby: string; desc: boolean; name?: string; id?: string; ids?: string[]; pipelineId?: string },
    ): Promise<{ items: DatasetRecord[]; total: number }>;
    update(
      tenantId: string,
      id: string,
      patch: Partial<
        Pick<
          NewDataset,
          'name' | 'description' | 'avatar' | 'chunkMethod' | 'parserConfig' | 'permission' | 'pagerank' | 'language' | 'embeddingModel' | 'pipelineId'
        >
      > & { connectors?: unknown[] },
    ): Promise<DatasetRecord | null>;
    delete(tenantId: string, ids: string[]): Promise<string[]>;
  };
  documents: {
    create(input: {
      tenantId: string;
      datasetId: string;
      name: string;
      type: string;
      content: Uint8Array;
      metaFields?: Record<string, unknown>;
      chunkMethod?: string | null;
      parserConfig?: Record<string, unknown>;
    }): Promise<DocumentRecord>;
    get(tenantId: string, id: string): Promise<DocumentRecord | null>;
    list(
      tenantId: string,
      datasetId: string,
      opts: {
        page: number;
        pageSize: number;
        orderby: string;
        desc: boolean;
        keywords?: string;
        id?: string;
        name?: string;
        ids?: string[];
        runs?: string[];
        suffixes?: string[];
      },
    ): Promise<{ items: DocumentRecord[]; total: number }>;
    /** The uploaded file. */
    content(id: string): Promise<Uint8Array | null>;
    setProgress(
      id: string,
      p: {
        run?: DocumentRun;
        progress?: number;
        msg?: string;
        chunkCount?: number;
        tokenCount?: number;
        begin?: boolean;
        /** Leaves a document RUNNING since after this time (ms) alone: a newer parse owns it. */
        unlessBegunAfter?: number;
      },
    ): Promise<void>;
    update(
      tenantId: string,
      id: string,
      patch: { name?: string; metaFields?: Record<string, unknown>; chunkMethod?: string | null; parserConfig?: Record<string, unknown>; status?: string },
    ): Promise<DocumentRecord | null>;
    delete(tenantId: string, datasetId: string, ids: string[]): Promise<string[]>;
    /** Metadata of the datasets' documents, for filters. */
    metas(tenantId: string, datasetIds: string[]): Promise<Array<{ id: string; meta_fields: Record<string, unknown> }>>;
  };
  chunks: {
    /**
     * Replaces a document's chunks and its counts in one transaction (an ingestion pipeline's
     * commit): a reader sees the old chunks or the new ones, never a mix or none.
     */
    commitDocument(doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id' | 'name'>, chunks: NewChunk[]): Promise<{ replacedIds: string[] }>;
    /** Replaces a document's chunks (idempotent: a re-run writes the same ids). */
    replace(doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id' | 'name'>, chunks: NewChunk[]): Promise<void>;
    /** Appends chunks of a document (ids already present are left as they are). */
    add(doc: Pick<DocumentRecord, 'id' | 'tenant_id' | 'dataset_id' | 'name'>, chunks: NewChunk[]): Promise<void>;
    deleteForDocument(documentId: string): Promise<void>;
    list(
      tenantId: string,
      documentId: string,
      opts: { page: number; pageSize: number; keywords?: string; ids?: string[]; available?: boolean },
    ): Promise<{ items: ChunkRecord[]; total: number }>;
    get(tenantId: string, chunkId: string): Promise<ChunkRecord | null>;
    /** Changes a chunk's text or fields (a new text comes with its new embedding). */
    edit(tenantId: string, chunkId: string, patch: ChunkEdit): Promise<ChunkRecord | null>;
    /** Deletes chunks of a document (all of them when `ids` is null); answers the ids deleted. */
    deleteIds(tenantId: string, documentId: string, ids: string[] | null): Promise<string[]>;
    /** Recounts a document's chunks and tokens into the document row. */
    recount(documentId: string): Promise<void>;
    /** Candidates by vector similarity and by full text (each up to `topK`), with their cosine similarity. */
    candidates(search: ChunkSearch): Promise<ChunkHit[]>;
    count(tenantId: string, datasetIds: string[]): Promise<number>;
  };
  /** Whether candidates use pgvector (else an exact SQL fallback). */
  readonly vectorSearch: 'pgvector' | 'sql';
}
