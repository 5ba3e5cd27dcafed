/**
 * Extractor, in the two forms RAGFlow's engines read:
 * - the Python engine's (`rag/flow/extractor/extractor.py`): LLM params (`llm_id`, `sys_prompt`,
 *   `prompts`, generation settings) plus `field_name`, the chunk field the answer is written to;
 * - the Go engine's sectioned form (`internal/ingestion/component/extractor.go`): `keywords` and
 *   `questions` (`top_n`, optional `system_prompt`), `tags` (`top_n`, `tag_file_id`), `summary`
 *   and `metadata` (`enabled`, `metadata` field definitions, `built_in_metadata`). A section with
 *   `top_n` 0 or `enabled: false` is off.
 * A canvas naming any section is read in the sectioned form (as the Go engine reads it, ignoring
 * `field_name`); otherwise `field_name` must be given. An empty `llm_id` is the tenant's default
 * chat model.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { llmParamsShape } from '../../components/llmPrompt';

const SECTIONS = ['keywords', 'questions', 'tags', 'summary', 'metadata'] as const;

const text = z.preprocess((v) => (typeof v === 'string' ? v : ''), z.string());
const topN = z.preprocess(
  (v) => (v === undefined || v === null || v === '' ? 0 : typeof v === 'string' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number().int('top_n must be a whole number').min(0, 'top_n must be 0 (off) or more'),
);
/** Go reads `enabled` as a boolean, or a number that is 1. */
const enabled = z.preprocess((v) => (typeof v === 'boolean' ? v : v === 1 || v === '1'), z.boolean());

const FieldDefSchema = z.looseObject({
  key: text,
  type: text,
  description: text,
  enum: z.preprocess((v) => (Array.isArray(v) ? v.filter((e) => typeof e === 'string') : []), z.array(z.string())),
});
/** Field definitions as Go's `parseMetadataFieldDefs` keeps them: objects with a non-empty key. */
const fieldDefs = z.preprocess(
  (v) => (Array.isArray(v) ? v.filter((f) => typeof f === 'object' && f !== null && typeof f.key === 'string' && f.key.trim() !== '') : []),
  z.array(FieldDefSchema).transform((defs) => defs.map((d) => ({ ...d, key: d.key.trim() }))),
);

const section = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess((v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined), z.looseObject(shape).optional());

export const ExtractorParamsSchema = lazySchema(() =>
  z
    .looseObject({
      ...llmParamsShape,
      field_name: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string().trim()),
      keywords: section({ top_n: topN, system_prompt: text }),
      questions: section({ top_n: topN, system_prompt: text }),
      tags: section({ top_n: topN, tag_file_id: text }),
      summary: section({ enabled, system_prompt: text }),
      metadata: section({ enabled, metadata: fieldDefs, built_in_metadata: fieldDefs }),
    })
    .superRefine((p, ctx) => {
      if (SECTIONS.some((s) => p[s] !== undefined)) return;
      if (!p.field_name) ctx.addIssue({ code: 'custom', path: ['field_name'], message: 'Result Destination (field_name) must not be empty' });
      if (p.field_name === 'toc')
        ctx.addIssue({
          code: 'custom',
          path: ['field_name'],
          message: 'field_name "toc" (a generated table of contents) is not supported here; choose another field',
        });
    }),
);

export type ExtractorParams = z.infer<typeof ExtractorParamsSchema>;
export type MetadataFieldDef = z.infer<typeof FieldDefSchema>;

/** The Go engine's sections, normalized (off sections read as 0 / false), or null for the `field_name` form. */
export interface ExtractorSections {
  keywords: { top_n: number; system_prompt: string };
  questions: { top_n: number; system_prompt: string };
  tags: { top_n: number; tag_file_id: string };
  summary: { enabled: boolean; system_prompt: string };
  metadata: { enabled: boolean; metadata: MetadataFieldDef[]; built_in_metadata: MetadataFieldDef[] };
}

export function extractorSections(p: ExtractorParams): ExtractorSections | null {
  if (!SECTIONS.some((s) => p[s] !== undefined)) return null;
  return {
    keywords: { top_n: p.keywords?.top_n ?? 0, system_prompt: p.keywords?.system_prompt ?? '' },
    questions: { top_n: p.questions?.top_n ?? 0, system_prompt: p.questions?.system_prompt ?? '' },
    tags: { top_n: p.tags?.top_n ?? 0, tag_file_id: p.tags?.tag_file_id ?? '' },
    summary: { enabled: p.summary?.enabled ?? false, system_prompt: p.summary?.system_prompt ?? '' },
    metadata: { enabled: p.metadata?.enabled ?? false, metadata: p.metadata?.metadata ?? [], built_in_metadata: p.metadata?.built_in_metadata ?? [] },
  };
}

/** Whether any section asks the model for something per chunk. */
export function sectionsActive(s: ExtractorSections): boolean {
  return (
    s.keywords.top_n > 0 ||
    s.questions.top_n > 0 ||
    s.summary.enabled ||
    (s.metadata.enabled && s.metadata.metadata.length > 0) ||
    (s.tags.top_n > 0 && s.tags.tag_file_id !== '')
  );
}
