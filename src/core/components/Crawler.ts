/**
 * Crawler: reads one web page (through the network guard) as markdown, cleaned HTML or text, as a
 * canvas node or an Agent tool. Params follow RAGFlow's CrawlerParam: `extract_type` html,
 * markdown or content; `proxy`.
 */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const CrawlerParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    proxy: z.preprocess(
      (v) => (v === '' || v === undefined ? null : v),
      z
        .string()
        .regex(/^https?:\/\/\S+$/i, 'proxy must be an http:// or https:// URL')
        .nullable(),
    ),
    extract_type: oneOf('extract_type', ['html', 'markdown', 'content'], 'markdown'),
  }),
);

export type CrawlerParams = z.infer<typeof CrawlerParams>;

export const Crawler = searchComponent<CrawlerParams>({
  name: 'Crawler',
  params: CrawlerParams,
  queryIsInput: true,
  outputs: ['formalized_content'],
  tool: {
    name: 'web_crawler',
    description: 'This tool can be used to crawl a web page and return its content as HTML, Markdown, or the extracted main text.',
    parameters: {
      query: {
        type: 'string',
        description: 'The absolute URL (including the http:// or https:// scheme) of the web page to crawl.',
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Crawling ${paramText(ctx, p.query)}...`,
});
