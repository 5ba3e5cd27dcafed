/** What the store keeps of RAGFlow's memories and their messages (src/io/store/memories.ts). */

/** RAGFlow's MemoryType bits: raw 1, semantic 2, episodic 4, procedural 8. */
export const MEMORY_TYPES = ['raw', 'semantic', 'episodic', 'procedural'] as const;
export type MemoryTypeName = (typeof MEMORY_TYPES)[number];

/** The bit mask of a list of type names (unknown names count nothing), RAGFlow's `calculate_memory_type`. */
export function memoryTypeMask(names: readonly string[]): number {
  return MEMORY_TYPES.reduce((mask, t, i) => (names.includes(t) ? mask | (1 << i) : mask), 0);
}

/** The type names of a mask, RAGFlow's `get_memory_type_human`. */
export function memoryTypeNames(mask: number): MemoryTypeName[] {
  return MEMORY_TYPES.filter((_t, i) => (mask & (1 << i)) !== 0);
}

export interface MemoryRecord {
  id: string;
  tenant_id: string;
  name: string;
  avatar: string | null;
  memory_type: number;
  storage_type: string;
  embd_id: string;
  llm_id: string;
  permissions: string;
  description: string | null;
  memory_size: number;
  forgetting_policy: string;
  temperature: number;
  system_prompt: string;
  user_prompt: string;
  create_time: number;
  update_time: number;
  create_date: string;
  update_date: string;
}

export interface NewMemory {
  tenantId: string;
  name: string;
  memoryType: number;
  embdId: string;
  llmId: string;
  systemPrompt: string;
}

export type MemoryPatch = Partial<
  Pick<
    MemoryRecord,
    | 'name'
    | 'avatar'
    | 'memory_type'
    | 'embd_id'
    | 'llm_id'
    | 'permissions'
    | 'description'
    | 'memory_size'
    | 'forgetting_policy'
    | 'temperature'
    | 'system_prompt'
    | 'user_prompt'
  >
>;

export interface MemoryListFilter {
  /** Bit mask: memories with any of these types. */
  memoryType?: number;
  storageType?: string;
  ids?: string[];
  keywords?: string;
  page: number;
  pageSize: number;
}

/** A message as RAGFlow's memory APIs answer it. */
export interface MemoryMessage {
  message_id: number;
  message_type: string;
  source_id: number;
  memory_id: string;
  user_id: string;
  agent_id: string;
  session_id: string;
  valid_at: string;
  invalid_at: string | null;
  forget_at: string | null;
  status: boolean;
  content: string;
}

/** A message to store: its content, embedding and where it came from. */
export interface NewMemoryMessage {
  messageType: string;
  sourceId: number;
  userId: string;
  agentId: string;
  sessionId: string;
  content: string;
  embedding: number[];
  validAt: string;
  invalidAt: string | null;
  /** Bytes counted against the memory's size (RAGFlow's `calculate_message_size`). */
  size: number;
  /** A canvas turn's key: a second save with it adds nothing. */
  saveKey?: string | null;
}

export interface MemorySearch {
  tenantId: string;
  memoryIds: string[];
  embedding: number[];
  query: string;
  agentId?: string;
  sessionId?: string;
  userId?: string;
  /** Candidates per side (vector, full text). */
  limit: number;
}

/** A search candidate with its cosine similarity to the query. */
export type MemoryHit = MemoryMessage & { vectorSimilarity: number };

export interface MemoryStore {
  create(input: NewMemory): Promise<MemoryRecord>;
  get(tenantId: string, id: string): Promise<MemoryRecord | null>;
  /** The tenant's memories among `ids` (others' and unknown ids are left out). */
  getMany(tenantId: string, ids: string[]): Promise<MemoryRecord[]>;
  findByName(tenantId: string, name: string): Promise<MemoryRecord | null>;
  list(tenantId: string, filter: MemoryListFilter): Promise<{ items: MemoryRecord[]; total: number }>;
  update(tenantId: string, id: string, patch: MemoryPatch): Promise<MemoryRecord | null>;
  /** Deletes the memory and its messages. */
  delete(tenantId: string, id: string): Promise<boolean>;
  messages: MemoryMessagesStore;
}

export interface MemoryMessagesStore {
  /**
   * Stores messages in one memory, first forgetting FIFO (forgotten ones, then the oldest) when
   * they would exceed the memory's size, in one transaction. A message whose save key the memory
   * already holds is not stored again: `saved` says whether the first message (the raw turn) is
   * new, and `messageIds` are the stored ids (the existing one for a repeated key).
   */
  save(
    tenantId: string,
    memoryId: string,
    messages: NewMemoryMessage[],
  ): Promise<{ saved: boolean; messageIds: number[]; evicted: number[]; refused?: string }>;
  /** Replaces what was extracted from a raw message (a retried extraction leaves one set). */
  replaceExtracted(
    tenantId: string,
    memoryId: string,
    sourceId: number,
    messages: NewMemoryMessage[],
  ): Promise<{ messageIds: number[]; removed: number[]; refused?: string }>;
  /** Those of `messageIds` that are searchable (enabled, not forgotten) and pass the filters. */
  byIds(tenantId: string, memoryIds: string[], messageIds: number[], f: { agentId?: string; sessionId?: string; userId?: string }): Promise<MemoryMessage[]>;
  /** Bytes the memory's messages take. */
  size(memoryId: string): Promise<number>;
  get(tenantId: string, memoryId: string, messageId: number): Promise<(MemoryMessage & { content_embed: number[] }) | null>;
  /** Raw messages (newest first), filtered by agent ids and session id keywords, with what was extracted from them. */
  listRaw(
    tenantId: string,
    memoryId: string,
    opts: { agentIds: string[]; keywords: string; page: number; pageSize: number },
  ): Promise<{ items: Array<MemoryMessage & { extract: MemoryMessage[] }>; total: number }>;
  /** Newest messages that are not forgotten. */
  recent(tenantId: string, memoryIds: string[], opts: { agentId?: string; sessionId?: string; limit: number }): Promise<MemoryMessage[]>;
  /** Candidates by vector similarity and by full text (valid, not forgotten). */
  candidates(s: MemorySearch): Promise<MemoryHit[]>;
  /** Sets fields of one message; false when it does not exist. */
  update(tenantId: string, memoryId: string, messageId: number, patch: { status?: boolean; forgetAt?: string }): Promise<boolean>;
  /** How many messages a memory holds (all types), for tests and the crash counts. */
  count(tenantId: string, memoryId: string): Promise<number>;
}
