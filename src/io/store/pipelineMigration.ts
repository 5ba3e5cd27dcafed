/**
 * Migration 8: ingestion pipelines (issue 16). A dataset may name a pipeline canvas
 * (`pipeline_id`, RAGFlow's dataset setting); chunks a pipeline writes carry the fields its
 * Extractor/Tokenizer produced beyond text, keywords and questions (`extra`: summary, metadata…,
 * RAGFlow's other `*_kwd`/`*_tks` fields), as jsonb.
 */
import type { Migration } from './releasedMigrations';

export const PIPELINE_MIGRATION: Migration = {
  version: 8,
  name: "ingestion pipelines: a dataset's pipeline_id, chunk fields a pipeline writes (extra jsonb)",
  statements: ['ALTER TABLE datasets ADD COLUMN pipeline_id text', `ALTER TABLE chunks ADD COLUMN extra jsonb NOT NULL DEFAULT '{}'::jsonb`],
};
