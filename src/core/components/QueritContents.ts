/** QueritContents: reads web pages through Querit's contents API, as a canvas node or an Agent tool. Params follow RAGFlow's QueritContentsParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { bool, executionParamsShape, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const QueritContentsParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    api_key: str(''),
    // A list, or text with commas; the model gives them when the node leaves them empty.
    urls: z.preprocess(
      (v) =>
        v == null
          ? []
          : typeof v === 'string'
            ? v
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean)
            : v,
      z
        .array(z.string().regex(/^(https?:\/\/\S+|\{[^}]+\})$/i, 'Querit urls must be absolute HTTP or HTTPS URLs.'))
        .max(10, 'Querit urls must contain between 1 and 10 non-empty strings.'),
    ),
    format: oneOf('format', ['text', 'markdown', 'html'], 'markdown'),
    crawl_timeout: z.preprocess(
      (v) => (v == null || v === '' ? 10 : v),
      z
        .number()
        .int('Querit crawl_timeout must be an integer from 1 to 60.')
        .min(1, 'Querit crawl_timeout must be an integer from 1 to 60.')
        .max(60, 'Querit crawl_timeout must be an integer from 1 to 60.'),
    ),
    extras_meta: bool(false),
  }),
);

export type QueritContentsParams = z.infer<typeof QueritContentsParams>;

export const QueritContents = searchComponent<QueritContentsParams>({
  name: 'QueritContents',
  params: QueritContentsParams,
  outputs: ['json'],
  tool: {
    name: 'querit_contents',
    description: 'Crawl one or more web pages with Querit and return their contents.',
    parameters: {
      urls: {
        type: 'array',
        description: 'The absolute HTTP or HTTPS URLs to crawl. Supports 1 to 10 URLs.',
        default: [],
        items: { type: 'string' },
        required: true,
      },
      format: {
        type: 'string',
        description: 'Content format: text, markdown, or html. Defaults to markdown.',
        enum: ['text', 'markdown', 'html'],
        default: 'markdown',
        required: false,
      },
      crawl_timeout: { type: 'integer', description: 'Per-page crawl timeout in seconds. Must be between 1 and 60.', default: 10, required: false },
      extras_meta: { type: 'boolean', description: 'Whether to include page metadata in each result.', default: false, required: false },
    },
  },
  nodeArgs: (p, ctx) => ({ urls: p.urls.map((u) => ctx.render(u).trim()).filter(Boolean) }),
  thoughts: () => 'Reading web page contents with Querit.',
});
