/**
 * DuckDuckGo client. Web results come from the HTML endpoint (`POST {DUCKDUCKGO_BASE_URL}/html/`,
 * default https://html.duckduckgo.com; following its "Next" form until `top_n` results), because
 * DuckDuckGo's only JSON API (api.duckduckgo.com, Instant Answers) gives no web results. News
 * come from the JSON endpoint DuckDuckGo's own news tab uses: a `vqd` token from the search page,
 * then `GET {DUCKDUCKGO_NEWS_BASE_URL}/news.js` (default https://duckduckgo.com).
 */
import { AppError } from '../../errors';
import { extractVqd, htmlText, parseDdgHtml, type DdgResult } from './ddgHtml';
import { searchExecutor } from './search';
import { fetchJson, fetchText, positiveInt, trimBase } from './webHttp';

/** Pages of web results fetched at most for one search (DuckDuckGo serves 10–30 per page). */
const MAX_PAGES = 5;

/** RAGFlow's params say `text`/`news`, its tool meta `general`/`news`: either `news` means news. */
function wantsNews(args: Record<string, unknown>, params: Record<string, unknown>): boolean {
  const channel = args.channel ?? args.topic ?? params.channel;
  return (
    String(channel ?? '')
      .trim()
      .toLowerCase() === 'news'
  );
}

async function webResults(base: string, query: string, topN: number, signal: AbortSignal, env: Record<string, string | undefined>): Promise<DdgResult[]> {
  const found: DdgResult[] = [];
  const seen = new Set<string>();
  let form: Record<string, string> | null = { q: query, b: '', kl: 'wt-wt' };
  for (let page = 0; form && page < MAX_PAGES && found.length < topN; page++) {
    const { status, text } = await fetchText(`${base}/html/`, { method: 'POST', params: form, signal, env, service: 'DuckDuckGo' });
    const parsed = parseDdgHtml(text);
    // 202 with a challenge page is how DuckDuckGo throttles automated clients: worth a later retry.
    if (parsed.challenged || (status === 202 && parsed.results.length === 0)) {
      throw new AppError('TOOL_UNAVAILABLE', 'DuckDuckGo answered with its bot challenge instead of results (rate limited); try again later');
    }
    for (const r of parsed.results) {
      if (seen.has(r.href)) continue;
      seen.add(r.href);
      found.push(r);
    }
    form = parsed.next;
  }
  return found.slice(0, topN);
}

export interface DdgNewsResult {
  date: string;
  title: string;
  body: string;
  url: string;
  image: string;
  source: string;
}

async function newsResults(base: string, query: string, topN: number, signal: AbortSignal, env: Record<string, string | undefined>): Promise<DdgNewsResult[]> {
  const landing = await fetchText(`${base}/`, { params: { q: query }, signal, env, service: 'DuckDuckGo' });
  const vqd = extractVqd(landing.text);
  if (!vqd) throw new AppError('TOOL_UNAVAILABLE', 'DuckDuckGo did not hand out a search token (vqd) for news; try again later');
  const res = await fetchJson(`${base}/news.js`, { params: { l: 'wt-wt', o: 'json', noamp: '1', q: query, vqd, p: '-1' }, signal, env, service: 'DuckDuckGo' });
  const items = (res as { results?: unknown } | null)?.results;
  if (!Array.isArray(items)) throw new AppError('TOOL_UNAVAILABLE', 'DuckDuckGo answered news without a results list');
  return (items as Array<Record<string, unknown>>).slice(0, topN).map((r) => ({
    // news.js gives seconds since the epoch; RAGFlow's client reports ISO dates.
    date: typeof r.date === 'number' ? new Date(r.date * 1000).toISOString() : String(r.date ?? ''),
    title: htmlText(String(r.title ?? '')),
    body: htmlText(String(r.excerpt ?? r.body ?? '')),
    url: String(r.url ?? ''),
    image: String(r.image ?? ''),
    source: String(r.source ?? ''),
  }));
}

export const duckDuckGoSearch = searchExecutor(async ({ params, args, env, signal }, query) => {
  const topN = positiveInt(params.top_n, 10);
  const news = wantsNews(args, params);
  const json = news
    ? await newsResults(trimBase(env.DUCKDUCKGO_NEWS_BASE_URL || 'https://duckduckgo.com'), query, topN, signal, env)
    : await webResults(trimBase(env.DUCKDUCKGO_BASE_URL || 'https://html.duckduckgo.com'), query, topN, signal, env);
  return { hits: json.map((r) => ({ title: r.title, url: 'href' in r ? r.href : r.url, snippet: r.body })), json };
});
