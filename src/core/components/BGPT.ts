/** BGPT: scientific papers with structured evidence from their full text, as a canvas node or an Agent tool. Params follow RAGFlow's BGPTParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const BGPTParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    top_n: positiveInt(10),
    api_key: str(''),
    days_back: z.preprocess((v) => (v === '' || v === undefined ? null : v), positiveInt(1).nullable()),
  }),
);

export type BGPTParams = z.infer<typeof BGPTParams>;

export const BGPT = searchComponent<BGPTParams>({
  name: 'BGPT',
  params: BGPTParams,
  queryIsInput: true,
  tool: {
    name: 'bgpt_search',
    description:
      'BGPT searches scientific papers and returns structured evidence extracted from full-text studies: methods, sample sizes, results, limitations, conflicts of interest, data/code availability, study blind spots, quality scores, and falsification prompts. Useful when the agent must judge a scientific claim, not just find abstracts.',
    parameters: {
      query: {
        type: 'string',
        description: "Natural-language scientific search query. Use the most important terms from the user's request.",
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Searching BGPT for structured scientific evidence on \`${paramText(ctx, p.query)}\`.`,
});
