/** ArXiv: searches arXiv's Atom API for papers, as a canvas node or an Agent tool. Params follow RAGFlow's ArXivParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { oneOf, searchComponent } from './searchTool';

const ArXivParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    top_n: positiveInt(12),
    sort_by: oneOf('sort_by', ['submittedDate', 'lastUpdatedDate', 'relevance'], 'submittedDate'),
  }),
);

export type ArXivParams = z.infer<typeof ArXivParams>;

export const ArXiv = searchComponent<ArXivParams>({
  name: 'ArXiv',
  params: ArXivParams,
  queryIsInput: true,
  tool: {
    name: 'arxiv_search',
    description:
      'arXiv is a free distribution service and an open-access archive for nearly 2.4 million scholarly articles in the fields of physics, mathematics, computer science, quantitative biology, quantitative finance, statistics, electrical engineering and systems science, and economics. Materials on this site are not peer-reviewed by arXiv.',
    parameters: {
      query: {
        type: 'string',
        description:
          'The search keywords to execute with arXiv. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Keywords: ${paramText(ctx, p.query)}\nLooking for the most relevant articles.`,
});
