/**
 * GoogleScholar client. RAGFlow's tool drives the `scholarly` library, which scrapes Google
 * Scholar's HTML pages (no API, and Google blocks such scraping); here the same search goes
 * through SerpApi's Google Scholar engine (`engine=google_scholar`), a stable JSON protocol, with
 * RAGFlow's params mapped onto it: `year_low`/`year_high` → `as_ylo`/`as_yhi`, `sort_by: date` →
 * `scisbd=1`, `patents` → `as_sdt=7` (include) or `0`. The key is the component's `api_key` or
 * SERPAPI_API_KEY.
 */
import { searchExecutor } from './search';
import { serpApi } from './serpapi';
import { positiveInt } from './webHttp';

type ScholarResult = Record<string, unknown> & { publication_info?: { summary?: string; authors?: Array<{ name?: string }> } };

const year = (v: unknown) => (v === null || v === undefined || v === '' ? undefined : String(v));

export const googleScholarSearch = searchExecutor(async (x, query) => {
  const p = x.params;
  const ylo = year(p.year_low);
  const yhi = year(p.year_high);
  const res = await serpApi(x, 'GoogleScholar', {
    engine: 'google_scholar',
    q: query,
    num: String(Math.min(positiveInt(p.top_n, 12), 20)),
    as_sdt: p.patents === false ? '0' : '7',
    ...(p.sort_by === 'date' ? { scisbd: '1' } : {}),
    ...(ylo ? { as_ylo: ylo } : {}),
    ...(yhi ? { as_yhi: yhi } : {}),
  });
  const results = ((Array.isArray(res.organic_results) ? res.organic_results : []) as ScholarResult[]).slice(0, positiveInt(p.top_n, 12));
  const hits = results.map((r) => {
    const authors = (r.publication_info?.authors ?? []).map((a) => a.name ?? '').filter(Boolean);
    const by = authors.length ? authors.join(',') : (r.publication_info?.summary ?? '');
    return { title: String(r.title ?? ''), url: String(r.link ?? ''), snippet: `\n author: ${by}\n Abstract: ${String(r.snippet ?? 'no abstract')}` };
  });
  return { hits, json: results };
});
