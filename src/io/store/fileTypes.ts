/** A run's files as the store keeps them (`run_files`): uploads a run reads and files a run makes. */
export type FileOrigin = 'upload' | 'output';

export interface FileMeta {
  id: string;
  tenant_id: string;
  origin: FileOrigin;
  run_id: string | null;
  name: string;
  mime_type: string;
  size: number;
  /** Parsed text of a document (null for images and files that have none). */
  text: string | null;
  create_time: number;
}

export interface NewFile {
  tenantId: string;
  origin: FileOrigin;
  runId?: string | null;
  name: string;
  mimeType: string;
  content: Uint8Array;
  text?: string | null;
}

export interface FileStore {
  put(file: NewFile): Promise<FileMeta>;
  meta(tenantId: string, id: string): Promise<FileMeta | null>;
  /** Metadata of several files of a tenant (unknown ids are left out). */
  metas(tenantId: string, ids: string[]): Promise<Map<string, FileMeta>>;
  /** Metadata by id in any tenant: only for the worker, which holds ids the API checked. */
  metasById(ids: string[]): Promise<Map<string, FileMeta>>;
  content(tenantId: string, id: string): Promise<Uint8Array | null>;
  contentById(id: string): Promise<Uint8Array | null>;
}
