/**
 * TavilyExtract: reads web pages through Tavily's extract API, as a canvas node or an Agent tool.
 * Params follow RAGFlow's TavilyExtractParam.
 */
import { z } from 'zod';
import { executionParamsShape, str } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentDef } from './definition';

const TavilyExtractParams = z.looseObject({
  ...executionParamsShape,
  api_key: str(''),
  urls: z.preprocess((v) => (v == null ? '' : v), z.union([z.string(), z.array(z.string())])),
  extract_depth: z.preprocess(
    (v) => (v == null || v === '' ? 'basic' : v),
    z.enum(['basic', 'advanced'], { message: "extract_depth should be 'basic' or 'advanced'" }),
  ),
  format: z.preprocess((v) => (v == null || v === '' ? 'markdown' : v), z.enum(['markdown', 'text'], { message: "format should be 'markdown' or 'text'" })),
});

export type TavilyExtractParams = z.infer<typeof TavilyExtractParams>;

export const TavilyExtract: ComponentDef<TavilyExtractParams> = {
  name: 'TavilyExtract',
  params: TavilyExtractParams,
  role: 'plain',
  execution: 'activity',
  outputNames: () => ['formalized_content', 'json'],
  inputRefs: () => [],
  tool: {
    meta: () => ({
      name: 'tavily_extract',
      description: 'Extract the content of one or more web pages with Tavily Extract.',
      parameters: {
        urls: {
          type: 'array',
          description: 'The URLs to read.',
          items: { type: 'string', description: 'A URL, e.g. https://example.com/page' },
          required: true,
        },
        extract_depth: {
          type: 'string',
          description: 'basic (default) or advanced (tables, embedded content; slower).',
          enum: ['basic', 'advanced'],
          default: 'basic',
          required: false,
        },
        format: { type: 'string', description: 'markdown (default) or text.', enum: ['markdown', 'text'], default: 'markdown', required: false },
      },
    }),
  },
  thoughts: (p) => `Opened ${Array.isArray(p.urls) ? p.urls.join(', ') : p.urls}, pulling out the main text…`,
  run: (p, ctx) => {
    const urls = (Array.isArray(p.urls) ? p.urls : ctx.render(p.urls).split(',')).map((u) => u.trim()).filter(Boolean);
    return runToolNode('TavilyExtract', ctx, { urls });
  },
  onResult: (_p, _ctx, result) => readToolNodeResult(result),
};
