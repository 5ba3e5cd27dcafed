/**
 * Google client through SerpApi's Google engine, with RAGFlow's request: `q`, `google_domain`
 * google.com, `gl` the country, `hl` the language, plus `start` and `num`. Each organic result
 * is cited with its "about this result" description when SerpApi gives one, else its snippet.
 */
import { searchExecutor, textParam } from './search';
import { serpApi } from './serpapi';
import { positiveInt } from './webHttp';

type Organic = Record<string, unknown> & { about_this_result?: { source?: { description?: string } } };

const int = (v: unknown, def: number) => (v === 0 || v === '0' ? 0 : positiveInt(v, def));

export const googleSearch = searchExecutor(
  async (x, query) => {
    const num = positiveInt(x.args.num ?? x.params.num ?? x.params.top_n, 6);
    const res = await serpApi(x, 'Google', {
      engine: 'google',
      q: query,
      google_domain: 'google.com',
      gl: textParam(x.params, 'country') || 'cn',
      hl: textParam(x.params, 'language') || 'en',
      start: String(int(x.args.start ?? x.params.start, 0)),
      num: String(num),
    });
    const organic = (Array.isArray(res.organic_results) ? res.organic_results : []) as Organic[];
    const hits = organic.map((r) => ({
      title: String(r.title ?? ''),
      url: String(r.link ?? ''),
      snippet: String(r.about_this_result?.source?.description ?? r.snippet ?? ''),
    }));
    return { hits, json: organic };
  },
  ['q', 'query'],
);
