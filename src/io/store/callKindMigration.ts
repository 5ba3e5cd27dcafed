/**
 * Migration 20: a model call trace says what kind of call it was. Besides chat completions, the
 * traces now keep the embedding and rerank requests a Retrieval makes (issue 36); every row
 * written before is a chat attempt, which the default says.
 */
import type { Migration } from './releasedMigrations';

export const CALL_KIND_MIGRATION: Migration = {
  version: 20,
  name: 'Model call traces: the kind of call (chat, embedding, rerank)',
  statements: [`ALTER TABLE model_call_traces ADD COLUMN kind text NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'embedding', 'rerank'))`],
};
