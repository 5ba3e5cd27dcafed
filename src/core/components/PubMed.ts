/** PubMed: searches PubMed through NCBI's E-utilities, as a canvas node or an Agent tool. Params follow RAGFlow's PubMedParam. */
import { z } from 'zod';
import { lazySchema } from '../dsl/lazySchema';
import { executionParamsShape, paramText, positiveInt, str } from './common';
import { searchComponent } from './searchTool';

const PubMedParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    query: str('{sys.query}'),
    top_n: positiveInt(12),
    /** NCBI asks E-utilities clients for a contact address. */
    email: str('A.N.Other@example.com'),
  }),
);

export type PubMedParams = z.infer<typeof PubMedParams>;

export const PubMed = searchComponent<PubMedParams>({
  name: 'PubMed',
  params: PubMedParams,
  queryIsInput: true,
  tool: {
    name: 'pubmed_search',
    description:
      'PubMed is an openly accessible, free database which includes primarily the MEDLINE database of references and abstracts on life sciences and biomedical topics. In addition to MEDLINE, PubMed provides access to older references from the print version of Index Medicus, references to some journals before they were indexed, very recent entries before they are indexed with MeSH, a collection of books available full-text, PMC citations and the NCBI Bookshelf.',
    parameters: {
      query: {
        type: 'string',
        description:
          'The search keywords to execute with PubMed. The keywords should be the most important words/terms(includes synonyms) from the original request.',
        default: '{sys.query}',
        required: true,
      },
    },
  },
  thoughts: (p, ctx) => `Looking for scholarly papers on \`${paramText(ctx, p.query)}\`, prioritising reputable sources.`,
});
