/**
 * Wikipedia client over the MediaWiki Action API of the component's language edition
 * (WIKIPEDIA_BASE_URL, default `https://{lang}.wikipedia.org`): a full-text search for `top_n`
 * titles, then their plain-text introductions (what RAGFlow's `wikipedia` library calls a page's
 * summary). Disambiguation pages are skipped, as RAGFlow skips them.
 */
import { AppError } from '../../errors';
import { searchExecutor } from './search';
import { fetchJson, positiveInt, trimBase } from './webHttp';

/** MediaWiki returns at most 20 introductions per request. */
const EXTRACTS_PER_REQUEST = 20;
/** A ceiling on `top_n`: each result is a page read into the prompt. */
const MAX_RESULTS = 100;

interface SearchHit {
  pageid: number;
  title: string;
}

interface PageInfo {
  pageid?: number;
  title?: string;
  extract?: string;
  fullurl?: string;
  missing?: boolean;
  pageprops?: Record<string, unknown>;
}

/** A Wikipedia language code (`en`, `zh-yue`, `simple`); anything else could redirect the host name. */
function languageCode(v: unknown): string {
  const lang =
    String(v ?? '')
      .trim()
      .toLowerCase() || 'en';
  if (!/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(lang) || lang.length > 20) throw new AppError('TOOL_BAD_REQUEST', `"${lang}" is not a Wikipedia language code`);
  return lang;
}

/** MediaWiki reports bad parameters and throttling as `{error}` in an HTTP 200 answer. */
async function api(
  url: string,
  params: Record<string, string>,
  signal: AbortSignal,
  env: Record<string, string | undefined>,
): Promise<Record<string, unknown>> {
  const res = (await fetchJson(url, { params: { ...params, format: 'json', formatversion: '2', utf8: '1' }, signal, env, service: 'Wikipedia' })) as Record<
    string,
    unknown
  > | null;
  const error = res?.error as { code?: string; info?: string } | undefined;
  if (error) {
    const transient = error.code === 'maxlag' || error.code === 'ratelimited' || error.code === 'readonly';
    throw new AppError(
      transient ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST',
      `Wikipedia refused the request (${error.code ?? 'error'}): ${error.info ?? ''}`.trim(),
    );
  }
  return res ?? {};
}

export const wikipediaSearch = searchExecutor(async ({ params, env, signal }, query) => {
  const base = trimBase((env.WIKIPEDIA_BASE_URL || 'https://{lang}.wikipedia.org').replaceAll('{lang}', languageCode(params.language)));
  const endpoint = `${base}/w/api.php`;
  const topN = Math.min(positiveInt(params.top_n, 10), MAX_RESULTS);

  const found = await api(endpoint, { action: 'query', list: 'search', srsearch: query, srlimit: String(topN), srprop: '' }, signal, env);
  const hits = (((found.query as { search?: SearchHit[] } | undefined)?.search ?? []) as SearchHit[])
    .filter((h) => typeof h.pageid === 'number')
    .slice(0, topN);

  const pages = new Map<number, PageInfo>();
  for (let i = 0; i < hits.length; i += EXTRACTS_PER_REQUEST) {
    const ids = hits.slice(i, i + EXTRACTS_PER_REQUEST).map((h) => h.pageid);
    const read = await api(
      endpoint,
      {
        action: 'query',
        prop: 'extracts|info|pageprops',
        exintro: '1',
        explaintext: '1',
        exlimit: 'max',
        inprop: 'url',
        ppprop: 'disambiguation',
        redirects: '1',
        pageids: ids.join('|'),
      },
      signal,
      env,
    );
    for (const p of ((read.query as { pages?: PageInfo[] } | undefined)?.pages ?? []) as PageInfo[]) if (typeof p.pageid === 'number') pages.set(p.pageid, p);
  }

  // Search order is relevance order; the page batch comes back in any order.
  const json = hits
    .map((h) => pages.get(h.pageid))
    .filter((p): p is PageInfo => !!p && !p.missing && !(p.pageprops && 'disambiguation' in p.pageprops))
    .map((p) => ({
      title: p.title ?? '',
      url: p.fullurl ?? `${base}/wiki/${encodeURIComponent((p.title ?? '').replace(/ /g, '_'))}`,
      summary: (p.extract ?? '').trim(),
    }));
  return { hits: json.map((p) => ({ title: p.title, url: p.url, snippet: p.summary })), json };
});
