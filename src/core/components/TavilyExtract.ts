/**
 * TavilyExtract: reads web pages through Tavily's extract API, as a canvas node or an Agent tool.
 * Params follow RAGFlow's TavilyExtractParam.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const TavilyExtractParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    api_key: str(''),
    urls: z.preprocess((v) => (v == null ? '' : v), z.union([z.string(), z.array(z.string())])),
    extract_depth: oneOf('extract_depth', ['basic', 'advanced'], 'basic'),
    format: oneOf('format', ['markdown', 'text'], 'markdown'),
  }),
);

export type TavilyExtractParams = z.infer<typeof TavilyExtractParams>;

export const TavilyExtract = searchComponent<TavilyExtractParams>({
  name: 'TavilyExtract',
  params: TavilyExtractParams,
  tool: {
    name: 'tavily_extract',
    description: 'Extract the content of one or more web pages with Tavily Extract.',
    parameters: {
      urls: { type: 'array', description: 'The URLs to read.', items: { type: 'string', description: 'A URL, e.g. https://example.com/page' }, required: true },
      extract_depth: {
        type: 'string',
        description: 'basic (default) or advanced (tables, embedded content; slower).',
        enum: ['basic', 'advanced'],
        default: 'basic',
        required: false,
      },
      format: { type: 'string', description: 'markdown (default) or text.', enum: ['markdown', 'text'], default: 'markdown', required: false },
    },
  },
  thoughts: (p) => `Opened ${Array.isArray(p.urls) ? p.urls.join(', ') : p.urls}, pulling out the main text…`,
  // Pages instead of a query: a list, or the rendered param split at commas.
  nodeArgs: (p, ctx) => ({ urls: (Array.isArray(p.urls) ? p.urls : ctx.render(p.urls).split(',')).map((u) => u.trim()).filter(Boolean) }),
});
