/** GitHub: searches GitHub repositories (most starred first), as a canvas node or an Agent tool. Params follow RAGFlow's GitHubParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const GitHubParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    top_n: positiveInt(10),
  }),
);

export type GitHubParams = z.infer<typeof GitHubParams>;

export const GitHub = searchComponent<GitHubParams>({
  name: 'GitHub',
  params: GitHubParams,
  queryIsInput: true,
  tool: {
    name: 'github_search',
    description:
      'GitHub repository search is a feature that enables users to find specific repositories on the GitHub platform. This search functionality allows users to locate projects, codebases, and other content hosted on GitHub based on various criteria.',
    parameters: {
      query: {
        type: 'string',
        description:
          'The search keywords to execute with GitHub. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Scanning GitHub repos related to \`${paramText(ctx, p.query)}\`.`,
});
