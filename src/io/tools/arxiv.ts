/**
 * arXiv client: the Atom API (`GET {ARXIV_BASE_URL}/api/query?search_query=…&max_results=…&sortBy=…`),
 * what RAGFlow's `arxiv` library calls. Each entry is cited by its PDF link with its abstract.
 * arXiv reports a malformed query as an Atom entry titled "Error".
 */
import { XMLParser } from 'fast-xml-parser';
import { AppError } from '../../errors';
import { searchExecutor, serviceBase, textParam } from './search';
import { fetchText, positiveInt } from './webHttp';

interface AtomLink {
  '@_href'?: string;
  '@_title'?: string;
  '@_rel'?: string;
}

interface AtomEntry {
  id?: string;
  title?: string;
  summary?: string;
  published?: string;
  updated?: string;
  author?: Array<{ name?: string }>;
  link?: AtomLink[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (n) => ['entry', 'author', 'link', 'category'].includes(n) });
const flat = (v: unknown) =>
  String(v ?? '')
    .replace(/\s+/g, ' ')
    .trim();

export const arxivSearch = searchExecutor(async (x, query) => {
  const base = serviceBase(x.env, ['ARXIV_BASE_URL'], 'https://export.arxiv.org');
  const sortBy = textParam(x.params, 'sort_by') || 'submittedDate';
  const { text } = await fetchText(`${base}/api/query`, {
    params: { search_query: query, id_list: '', sortBy, sortOrder: 'descending', start: '0', max_results: String(positiveInt(x.params.top_n, 12)) },
    signal: x.signal,
    env: x.env,
    service: 'arXiv',
  });
  let feed: { feed?: { entry?: AtomEntry[] } };
  try {
    feed = parser.parse(text) as typeof feed;
  } catch {
    throw new AppError('TOOL_UNAVAILABLE', `arXiv answered something that is not an Atom feed: ${flat(text).slice(0, 200)}`);
  }
  if (!feed.feed) throw new AppError('TOOL_UNAVAILABLE', `arXiv answered something that is not an Atom feed: ${flat(text).slice(0, 200)}`);
  const entries = feed.feed.entry ?? [];
  const failed = entries.find((e) => flat(e.title) === 'Error' && String(e.id ?? '').includes('/api/errors'));
  if (failed) throw new AppError('TOOL_BAD_REQUEST', `arXiv refused the query: ${flat(failed.summary)}`);
  const papers = entries.map((e) => {
    const pdf = e.link?.find((l) => l['@_title'] === 'pdf')?.['@_href'];
    const id = flat(e.id);
    return {
      title: flat(e.title),
      url: pdf ?? id.replace('/abs/', '/pdf/'),
      entry_id: id,
      summary: flat(e.summary),
      authors: (e.author ?? []).map((a) => flat(a.name)),
      published: flat(e.published),
      updated: flat(e.updated),
    };
  });
  return { hits: papers.map((p) => ({ title: p.title, url: p.url, snippet: p.summary })), json: papers };
});
