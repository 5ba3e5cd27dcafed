/** DeepL: translates text with DeepL's API (free or pro host by the key), as a canvas node or an Agent tool. Params follow RAGFlow's DeepLParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, str } from './common';
import { oneOf, searchComponent } from './searchTool';

// RAGFlow's lists, in its order (error messages name them in this order); one line each.
// prettier-ignore
const SOURCES = ['AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN', 'ES', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH'] as const;
// prettier-ignore
const TARGETS = ['AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN-GB', 'EN-US', 'ES', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH'] as const;

const DeepLParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    auth_key: str('xxx'),
    source_lang: oneOf('source_lang', SOURCES, 'ZH'),
    target_lang: oneOf('target_lang', TARGETS, 'EN-GB'),
  }),
);

export type DeepLParams = z.infer<typeof DeepLParams>;

export const DeepL = searchComponent<DeepLParams>({
  name: 'DeepL',
  params: DeepLParams,
  queryIsInput: true,
  outputs: ['formalized_content'],
  tool: {
    name: 'deepl_translate',
    description: 'DeepL translates text into a target language using the DeepL translation service.',
    parameters: { query: { type: 'string', description: 'The text to translate.', default: '{sys.query}', required: true } },
  },
  thoughts: (p, ctx) => `Translating into ${p.target_lang}: ${paramText(ctx, p.query)}`,
});
