/**
 * Migration 12: RAGFlow's long-term agent memory. A memory belongs to one tenant and names its
 * embedding model and LLM; its messages are the raw turns saved into it (and what its LLM
 * extracted from them), each embedded (`real[]`, searched by an exact dot product on both
 * backends) and full-text indexed. `message_id` is a number, as RAGFlow's SDK expects. A turn a
 * canvas run saves carries a `save_key` (run, node, visit): a retried save finds it and adds
 * nothing, so a worker killed after the save never saves twice.
 */
import type { Migration } from './releasedMigrations';

export const MEMORY_MIGRATION: Migration = {
  version: 12,
  name: 'memories and their messages (embedded, full-text indexed; a canvas save keyed once per turn)',
  statements: [
    `CREATE TABLE memories (
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      name text NOT NULL,
      avatar text,
      memory_type int NOT NULL,
      storage_type text NOT NULL DEFAULT 'table',
      embd_id text NOT NULL,
      llm_id text NOT NULL,
      permissions text NOT NULL DEFAULT 'me',
      description text,
      memory_size bigint NOT NULL DEFAULT 5242880,
      forgetting_policy text NOT NULL DEFAULT 'FIFO',
      temperature double precision NOT NULL DEFAULT 0.5,
      system_prompt text NOT NULL DEFAULT '',
      user_prompt text NOT NULL DEFAULT '',
      create_time double precision NOT NULL,
      update_time double precision NOT NULL,
      create_date text NOT NULL,
      update_date text NOT NULL
    )`,
    'CREATE UNIQUE INDEX memories_tenant_name ON memories (tenant_id, lower(name))',
    'CREATE SEQUENCE memory_message_ids',
    `CREATE TABLE memory_messages (
      message_id int PRIMARY KEY DEFAULT nextval('memory_message_ids'),
      memory_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
      tenant_id text NOT NULL,
      message_type text NOT NULL,
      source_id int NOT NULL DEFAULT 0,
      user_id text NOT NULL DEFAULT '',
      agent_id text NOT NULL DEFAULT '',
      session_id text NOT NULL DEFAULT '',
      content text NOT NULL,
      embedding real[] NOT NULL,
      tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED,
      size int NOT NULL,
      valid_at text NOT NULL,
      invalid_at text,
      forget_at text,
      status boolean NOT NULL DEFAULT true,
      save_key text,
      create_time double precision NOT NULL
    )`,
    'CREATE UNIQUE INDEX memory_messages_save_key ON memory_messages (memory_id, save_key)',
    'CREATE INDEX memory_messages_by_memory ON memory_messages (memory_id, valid_at)',
    'CREATE INDEX memory_messages_by_source ON memory_messages (memory_id, source_id)',
    'CREATE INDEX memory_messages_tsv ON memory_messages USING gin (tsv)',
  ],
};
