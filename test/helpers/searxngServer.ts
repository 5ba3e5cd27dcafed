/**
 * A local stand-in for a SearXNG instance's JSON API (`GET /search?q=…&format=json`), answering
 * as SearXNG does: a `results` list of `{url, title, content, engine, score, category…}`, and
 * HTTP 403 when asked for JSON while the instance has JSON output disabled.
 */
import { html, json, startStandIn, type StandIn } from './httpStandIn';

export interface SearxngOptions {
  /** false: the instance's settings.yml lacks `json` in search.formats. */
  jsonEnabled?: boolean;
}

/** Results for a query: three with content and one without (SearXNG returns such results). */
export function searxngResults(q: string): Array<Record<string, unknown>> {
  const slug = encodeURIComponent(q);
  return [
    ...[1, 2, 3].map((i) => ({
      url: `https://searx.example/${slug}/${i}`,
      title: `${q} result ${i}`,
      content: `SearXNG finding ${i} about ${q}.`,
      engine: i === 1 ? 'duckduckgo' : 'brave',
      engines: ['duckduckgo', 'brave'],
      parsed_url: ['https', 'searx.example', `/${slug}/${i}`, '', '', ''],
      positions: [i],
      score: 3 / i,
      category: 'general',
      template: 'default.html',
    })),
    { url: `https://searx.example/${slug}/empty`, title: `${q} without snippet`, content: '', engine: 'brave', score: 0.1, category: 'general' },
  ];
}

export async function startSearxngServer(opts: SearxngOptions = {}): Promise<StandIn> {
  return startStandIn((req) => {
    if (req.path !== '/search' && req.path !== '/searx/search') return html('<h1>Not Found</h1>', 404);
    if (req.query.format !== 'json') return html('<html>results page</html>');
    if (opts.jsonEnabled === false) return html('<html><body>403 Forbidden</body></html>', 403);
    const q = req.query.q ?? '';
    return json({
      query: q,
      number_of_results: 4,
      results: searxngResults(q),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  });
}
