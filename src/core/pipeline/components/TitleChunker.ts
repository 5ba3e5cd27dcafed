/**
 * TitleChunker (RAGFlow's `rag/flow/chunker/title_chunker/`, formerly `HierarchicalMerger`):
 * `method` (`hierarchy`: a chunk per heading path down to `hierarchy` levels; `group`: records
 * grouped under their section), `levels` (families of Python regexes, one per heading level; the
 * family matching the document best is used), `include_heading_content`,
 * `root_chunk_as_heading` and `chunk_token_cap` (0 disables it, else 128..8000).
 *
 * RAGFlow has no default `method`; canvases written before it existed (HierarchicalMerger) read
 * as `hierarchy`. A flat list of patterns reads as one family.
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';
import { pyRegexProblem } from '../pyRegex';

function numeric(v: unknown): unknown {
  return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
}

export const TitleChunkerParamsSchema = lazySchema(() =>
  z
    .looseObject({
      method: z.preprocess(
        (v) => (v === undefined || v === null || v === '' ? 'hierarchy' : v),
        z.enum(['hierarchy', 'group'], { error: 'Unsupported TitleChunker method: must be "hierarchy" or "group"' }),
      ),
      levels: z.preprocess(
        (v) => (v === undefined || v === null ? [] : Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? [v] : v),
        z.array(z.array(z.string())),
      ),
      hierarchy: z.preprocess((v) => (v === undefined || v === null || v === '' ? null : numeric(v)), z.number().int('must be a whole number').nullable()),
      include_heading_content: z.preprocess((v) => v ?? false, z.boolean()),
      root_chunk_as_heading: z.preprocess((v) => v ?? false, z.boolean()),
      chunk_token_cap: z.preprocess(
        (v) => (v === undefined ? 512 : v === null || v === '' ? 0 : numeric(v)),
        z
          .number()
          .int('must be a whole number')
          .refine((n) => n === 0 || (n >= 128 && n <= 8000), 'Chunk token cap must be 0 (no cap) or between 128 and 8000'),
      ),
    })
    .superRefine((p, ctx) => {
      if (p.levels.length === 0 || p.levels.every((family) => family.length === 0))
        ctx.addIssue({ code: 'custom', path: ['levels'], message: 'Hierarchical setups (levels) must not be empty' });
      if (p.method === 'hierarchy' && !p.hierarchy)
        ctx.addIssue({ code: 'custom', path: ['hierarchy'], message: 'Hierarchy number must not be empty for the "hierarchy" method' });
      p.levels.forEach((family, i) =>
        family.forEach((pattern, j) => {
          const problem = pyRegexProblem(pattern);
          if (problem) ctx.addIssue({ code: 'custom', path: ['levels', i, j], message: problem });
        }),
      );
    }),
);

export type TitleChunkerParams = z.infer<typeof TitleChunkerParamsSchema>;
