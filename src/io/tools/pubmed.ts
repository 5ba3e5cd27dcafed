/**
 * PubMed client: NCBI E-utilities, as RAGFlow's Biopython `Entrez` calls them — `esearch.fcgi`
 * (db=pubmed, term, retmax = top_n) for PMIDs, then `efetch.fcgi` (retmode=xml) for the articles,
 * each cited at https://pubmed.ncbi.nlm.nih.gov/<PMID> with its reference block (title, authors,
 * journal, volume, issue, pages, DOI, abstract). NCBI_API_KEY raises NCBI's rate limit (429).
 */
import { XMLParser } from 'fast-xml-parser';
import { AppError } from '../../errors';
import { credential, searchExecutor, serviceBase, textParam } from './search';
import { fetchJson, fetchText, positiveInt } from './webHttp';

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  isArray: (n) => ['PubmedArticle', 'Author', 'ArticleId', 'AbstractText'].includes(n),
});

/** The text of a parsed XML node (a string, a number, or an element with attributes). */
function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return text((v as Node)['#text']);
  return String(v).trim();
}

const at = (root: unknown, ...path: string[]): unknown => path.reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Node)[k] : undefined), root);

function reference(a: Node): { pmid: string; title: string; content: string } {
  const article = at(a, 'MedlineCitation', 'Article') as Node | undefined;
  const journal = at(article, 'Journal');
  const authors = ((at(article, 'AuthorList', 'Author') as Node[] | undefined) ?? [])
    .map((p) => `${text(p.ForeName)} ${text(p.LastName)}`.trim())
    .filter(Boolean);
  const ids = (at(a, 'PubmedData', 'ArticleIdList', 'ArticleId') as Node[] | undefined) ?? [];
  const doi = ids.find((i) => i['@_IdType'] === 'doi');
  const title = text(at(article, 'ArticleTitle'));
  const abstract = text(((at(article, 'Abstract', 'AbstractText') as unknown[] | undefined) ?? [])[0]);
  const content = [
    `Title: ${title || 'No title'}`,
    `Authors: ${authors.join(', ') || 'Unknown Authors'}`,
    `Journal: ${text(at(journal, 'Title')) || 'Unknown Journal'}`,
    `Volume: ${text(at(journal, 'JournalIssue', 'Volume')) || '-'}`,
    `Issue: ${text(at(journal, 'JournalIssue', 'Issue')) || '-'}`,
    `Pages: ${text(at(article, 'Pagination', 'MedlinePgn')) || '-'}`,
    `DOI: ${doi ? text(doi) : '-'}`,
    `Abstract: ${abstract || 'No abstract available'}`,
  ].join('\n');
  return { pmid: text(at(a, 'MedlineCitation', 'PMID')), title, content };
}

export const pubmedSearch = searchExecutor(async (x, query) => {
  const base = serviceBase(x.env, ['PUBMED_BASE_URL'], 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils');
  const key = credential(x, 'api_key', ['NCBI_API_KEY']);
  const common = { tool: 'agent-canvas', email: textParam(x.params, 'email') || 'A.N.Other@example.com', ...(key ? { api_key: key } : {}) };
  const req = { signal: x.signal, env: x.env, service: 'PubMed', secrets: key ? [key] : [] };
  const found = (await fetchJson(`${base}/esearch.fcgi`, {
    ...req,
    params: { ...common, db: 'pubmed', term: query, retmax: String(positiveInt(x.params.top_n, 12)), retmode: 'json' },
  })) as { esearchresult?: { idlist?: string[]; ERROR?: string }; error?: string } | null;
  const error = found?.esearchresult?.ERROR ?? found?.error;
  if (error) throw new AppError('TOOL_BAD_REQUEST', `PubMed refused the search: ${error}`);
  const ids = found?.esearchresult?.idlist ?? [];
  if (ids.length === 0) return { hits: [], json: [] };
  const { text: xml } = await fetchText(`${base}/efetch.fcgi`, { ...req, params: { ...common, db: 'pubmed', id: ids.join(','), retmode: 'xml' } });
  let parsed: Node;
  try {
    parsed = parser.parse(xml.replace(/<(\/?)[bi]>/g, '')) as Node;
  } catch {
    throw new AppError('TOOL_UNAVAILABLE', `PubMed answered something that is not XML: ${xml.slice(0, 200)}`);
  }
  const articles = ((at(parsed, 'PubmedArticleSet', 'PubmedArticle') as Node[] | undefined) ?? []).map(reference);
  const json = articles.map((r) => ({ pmid: r.pmid, title: r.title, url: `https://pubmed.ncbi.nlm.nih.gov/${r.pmid}`, content: r.content }));
  return { hits: json.map((r) => ({ title: r.title, url: r.url, snippet: r.content })), json };
});
