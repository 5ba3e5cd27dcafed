/**
 * The SearXNG, DuckDuckGo and Wikipedia clients called directly against local stand-ins of their
 * APIs: the requests they make, what they return (outputs, citations) and how they fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDdgHtml } from '../../src/io/tools/ddgHtml';
import { duckDuckGoSearch } from '../../src/io/tools/duckduckgo';
import { searxngSearch } from '../../src/io/tools/searxng';
import type { ToolExecution, ToolExecutor } from '../../src/io/tools/executor';
import { wikipediaSearch } from '../../src/io/tools/wikipedia';
import { ddgResultUrl, startDuckDuckGoServer } from '../helpers/duckduckgoServer';
import type { StandIn } from '../helpers/httpStandIn';
import { startSearxngServer } from '../helpers/searxngServer';
import { startWikipediaServer } from '../helpers/wikipediaServer';
import { failure } from '../helpers/failure';

let searx: StandIn;
let searxNoJson: StandIn;
let ddg: StandIn;
let wiki: StandIn;
// The stand-ins listen on loopback, which the network guard blocks for tenant-given URLs.
const allowLocal = { NETWORK_ALLOW_HOSTS: '127.0.0.1' };

beforeAll(async () => {
  [searx, searxNoJson, ddg, wiki] = await Promise.all([
    startSearxngServer(),
    startSearxngServer({ jsonEnabled: false }),
    startDuckDuckGoServer(),
    startWikipediaServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([searx, searxNoJson, ddg, wiki].map((s) => s?.stop()));
});

function call(executor: ToolExecutor, x: Partial<ToolExecution>) {
  return executor({ params: {}, args: {}, env: {}, signal: new AbortController().signal, tenantId: 't', ...x });
}

describe('SearXNG client', () => {
  it('sends RAGFlow query parameters and keeps top_n results, citations for those with content', async () => {
    const r = await call(searxngSearch, { env: allowLocal, params: { searxng_url: `${searx.url}/`, top_n: '4' }, args: { query: 'rust async' } });
    expect(searx.requestsFor('rust async')[0]).toMatchObject({
      method: 'GET',
      path: '/search',
      query: { q: 'rust async', format: 'json', categories: 'general', language: 'auto', safesearch: '1', pageno: '1' },
    });
    expect(r.outputs.json).toHaveLength(4);
    expect(Object.values(r.reference!.chunks)).toHaveLength(3);
    expect(r.text).toContain('SearXNG finding 1 about rust async.');
  });

  it('falls back to SEARXNG_BASE_URL, accepts a URL ending in /search and a path prefix', async () => {
    await call(searxngSearch, { env: { SEARXNG_BASE_URL: searx.url }, args: { query: 'from env' } });
    await call(searxngSearch, { env: allowLocal, params: { searxng_url: `${searx.url}/searx/search` }, args: { query: 'prefixed' } });
    expect(searx.requestsFor('from env')[0]!.path).toBe('/search');
    expect(searx.requestsFor('prefixed')[0]!.path).toBe('/searx/search');
  });

  it('explains a missing instance URL and an instance without JSON output', async () => {
    expect((await failure(call(searxngSearch, { args: { query: 'x' } }))).message).toMatch(/searxng_url.*SEARXNG_BASE_URL/);
    const e = await failure(call(searxngSearch, { env: allowLocal, params: { searxng_url: searxNoJson.url }, args: { query: 'x' } }));
    expect(e.code).toBe('TOOL_BAD_REQUEST');
    expect(e.message).toMatch(/search\.formats/);
  });

  it("sends a searxng_url through the network guard (the operator's SEARXNG_BASE_URL is trusted)", async () => {
    const e = await failure(call(searxngSearch, { params: { searxng_url: searx.url }, args: { query: 'guarded' } }));
    expect(e.code).toBe('TOOL_BAD_REQUEST');
    expect(e.message).toMatch(/127\.0\.0\.1 is .*NETWORK_ALLOW_HOSTS/);
    expect(searx.requestsFor('guarded')).toHaveLength(0);
  });

  it('returns nothing for an empty query without calling the instance', async () => {
    const before = searx.requests.length;
    expect(await call(searxngSearch, { params: { searxng_url: searx.url }, args: { query: '  ' } })).toMatchObject({
      text: '',
      outputs: { formalized_content: '' },
    });
    expect(searx.requests.length).toBe(before);
  });
});

describe('DuckDuckGo client', () => {
  it('parses the HTML results page: ads skipped, redirect links unwrapped, entities decoded, next page found', async () => {
    const res = await fetch(`${ddg.url}/html/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'q=a%26b' });
    const page = parseDdgHtml(await res.text());
    expect(page.results).toHaveLength(10);
    expect(page.results[0]).toEqual({ title: 'Result 1 about a&b & more', href: ddgResultUrl('a&b', 1), body: "Snippet 1: a&b explained 'simply'." });
    expect(page.next).toMatchObject({ q: 'a&b', s: '10', vqd: '4-318205713963258416781632901' });
  });

  it('follows the Next form until top_n web results', async () => {
    const r = await call(duckDuckGoSearch, { env: { DUCKDUCKGO_BASE_URL: ddg.url }, params: { top_n: 12, channel: 'text' }, args: { query: 'paging' } });
    const pages = ddg.requestsFor('paging');
    expect(pages.map((p) => [p.method, p.path, p.form.s ?? '0'])).toEqual([
      ['POST', '/html/', '0'],
      ['POST', '/html/', '10'],
    ]);
    expect(pages[0]!.form).toMatchObject({ q: 'paging', kl: 'wt-wt' });
    expect(r.outputs.json).toHaveLength(12);
    expect((r.outputs.json as Array<{ href: string }>)[11]!.href).toBe(ddgResultUrl('paging', 12));
  });

  it('searches news through the vqd token and news.js', async () => {
    const r = await call(duckDuckGoSearch, { env: { DUCKDUCKGO_NEWS_BASE_URL: ddg.url }, params: { top_n: 2 }, args: { query: 'elections', channel: 'news' } });
    const [landing, news] = ddg.requestsFor('elections');
    expect(landing).toMatchObject({ method: 'GET', path: '/' });
    expect(news).toMatchObject({ path: '/news.js', query: { o: 'json', vqd: '4-318205713963258416781632901', noamp: '1' } });
    expect(r.outputs.json).toEqual([
      {
        date: new Date((1_731_400_000 + 3600) * 1000).toISOString(),
        title: 'elections headline 1',
        body: 'Breaking 1: elections in the news.',
        url: 'https://news.example/elections/1',
        image: 'https://img.example/1.jpg',
        source: 'Example News 1',
      },
      expect.objectContaining({ title: 'elections headline 2' }),
    ]);
  });

  it('reports the bot challenge as a retryable outage', async () => {
    const e = await failure(call(duckDuckGoSearch, { env: { DUCKDUCKGO_BASE_URL: ddg.url }, args: { query: 'bot-challenge' } }));
    expect(e.code).toBe('TOOL_UNAVAILABLE');
    expect(e.message).toMatch(/bot challenge/);
  });
});

describe('Wikipedia client', () => {
  const env = () => ({ WIKIPEDIA_BASE_URL: `${wiki.url}/{lang}` });

  it('searches the language edition, reads introductions, skips disambiguation pages, keeps relevance order', async () => {
    const r = await call(wikipediaSearch, { env: env(), params: { language: 'de', top_n: 4 }, args: { query: 'Berlin' } });
    const [search] = wiki.requestsFor('Berlin');
    expect(search).toMatchObject({ path: '/de/w/api.php', query: { action: 'query', list: 'search', srsearch: 'Berlin', srlimit: '4' } });
    const read = wiki.requests.find((q) => q.path === '/de/w/api.php' && q.query.pageids === '1000|1001|1002|1003');
    expect(read?.query).toMatchObject({ prop: 'extracts|info|pageprops', exintro: '1', explaintext: '1' });
    expect((r.outputs.json as Array<{ title: string }>).map((p) => p.title)).toEqual(['Berlin', 'History of Berlin', 'Berlin in popular culture']);
    expect(r.outputs.json).toContainEqual({
      title: 'Berlin',
      url: 'https://de.wikipedia.org/wiki/Berlin',
      summary: 'Berlin [de] is article 0 about Berlin.\n\nIts second paragraph.',
    });
    expect(Object.values(r.reference!.doc_aggs).map((d) => (d as { url: string }).url)).toContain('https://de.wikipedia.org/wiki/History_of_Berlin');
  });

  it('refuses a language code that is not one and reports MediaWiki errors as bad requests', async () => {
    expect((await failure(call(wikipediaSearch, { env: env(), params: { language: 'evil.com/x' }, args: { query: 'x' } }))).code).toBe('TOOL_BAD_REQUEST');
    const e = await failure(call(wikipediaSearch, { env: env(), args: { query: 'bad-request' } }));
    expect(e).toMatchObject({ code: 'TOOL_BAD_REQUEST' });
    expect(e.message).toMatch(/invalidparammix/);
  });

  it('maps HTTP failures: 5xx retryable, 4xx not, unreachable retryable', async () => {
    wiki.failFor('flaky', [503]);
    expect((await failure(call(wikipediaSearch, { env: env(), args: { query: 'flaky' } }))).code).toBe('TOOL_UNAVAILABLE');
    wiki.failFor('gone', [404]);
    expect((await failure(call(wikipediaSearch, { env: env(), args: { query: 'gone' } }))).code).toBe('TOOL_BAD_REQUEST');
    const e = await failure(call(wikipediaSearch, { env: { WIKIPEDIA_BASE_URL: 'http://127.0.0.1:1/{lang}' }, args: { query: 'x' } }));
    expect(e.code).toBe('TOOL_UNAVAILABLE');
    expect(e.message).toMatch(/Wikipedia: could not reach http:\/\/127\.0\.0\.1:1\//);
  });
});
