/**
 * The search and research clients of RAGFlow's tool catalog, called directly against local
 * stand-ins of their services: the request each sends (RAGFlow's parameters), the answer (hits as
 * formalized content, json and citations), and each service's refusal and rate-limit answers as
 * TOOL_* errors — retryable only when waiting helps — that never quote a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arxivSearch } from '../../src/io/tools/arxiv';
import { bgptSearch } from '../../src/io/tools/bgpt';
import { bingSearch } from '../../src/io/tools/bing';
import type { ToolExecution, ToolExecutor } from '../../src/io/tools/executor';
import { githubSearch } from '../../src/io/tools/github';
import { googleSearch } from '../../src/io/tools/google';
import { googleScholarSearch } from '../../src/io/tools/googleScholar';
import { keenableSearch } from '../../src/io/tools/keenable';
import { pubmedSearch } from '../../src/io/tools/pubmed';
import { queritContents, queritSearch } from '../../src/io/tools/querit';
import { failure } from '../helpers/failure';
import { startToolServices, type ToolServices } from '../helpers/toolServices';

let svc: ToolServices;
beforeAll(async () => {
  svc = await startToolServices();
});
afterAll(async () => svc?.stop());

function call(executor: ToolExecutor, x: Partial<ToolExecution>) {
  return executor({ params: {}, args: {}, env: svc.env, signal: new AbortController().signal, tenantId: 't', ...x });
}

const urls = (r: Awaited<ReturnType<ToolExecutor>>) => Object.values(r.reference?.chunks ?? {}).map((c) => (c as { url: string }).url);

/** The error a call fails with: its code, whether Temporal retries it, and that no key leaks. */
async function refused(p: Promise<unknown>, code: string, retryable: boolean, ...secrets: string[]) {
  const e = await failure(p);
  expect({ code: e.code, retryable: e.retryable }).toEqual({ code, retryable });
  for (const s of secrets) expect(e.message).not.toContain(s);
  return e;
}

describe('Bing (Web Search API v7)', () => {
  it('searches web pages with the key header, market and count; cites the pages', async () => {
    const r = await call(bingSearch, { params: { api_key: 'bing-key', country: 'US', language: 'en', top_n: 3 }, args: { query: 'durable execution' } });
    const [req] = svc.requestsFor('durable execution');
    expect(req).toMatchObject({ path: '/bing/v7.0/search', query: { q: 'durable execution', count: '3', mkt: 'en-US', responseFilter: 'Webpages' } });
    expect(req!.headers['ocp-apim-subscription-key']).toBe('bing-key');
    expect(r.text).toContain('Bing snippet 2 about durable execution.');
    expect(urls(r).sort()).toEqual([1, 2, 3].map((i) => `https://web.bing.example/durable%20execution/${i}`));
  });

  it('reads news from /v7.0/news/search for the News channel, with BING_API_KEY', async () => {
    const r = await call(bingSearch, { env: { ...svc.env, BING_API_KEY: 'env-key' }, params: { channel: 'News' }, args: { query: 'bing news' } });
    expect(svc.requestsFor('bing news')[0]!.path).toBe('/bing/v7.0/news/search');
    expect((r.outputs.json as Array<{ description: string }>)[0]!.description).toBe('Bing news 1 about bing news.');
  });

  it('refuses a bad key (not retried), retries a rate limit, needs a key', async () => {
    const e = await refused(call(bingSearch, { params: { api_key: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    expect(e.message).toMatch(/invalid subscription key/);
    await refused(call(bingSearch, { params: { api_key: 'bing-key' }, args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true, 'bing-key');
    expect(
      (await failure(call(bingSearch, { params: { api_key: 'YOUR_API_KEY (obtained from https://www.microsoft.com)' }, args: { query: 'x' } }))).message,
    ).toMatch(/BING_API_KEY/);
  });
});

describe('Google (SerpApi)', () => {
  it("sends RAGFlow's SerpApi request and cites the organic results", async () => {
    const r = await call(googleSearch, { params: { api_key: 'serp-key', country: 'de', language: 'de' }, args: { q: 'temporal io', num: 3 } });
    expect(svc.requestsFor('temporal io')[0]).toMatchObject({
      path: '/serpapi/search.json',
      query: { engine: 'google', q: 'temporal io', google_domain: 'google.com', gl: 'de', hl: 'de', start: '0', num: '3', api_key: 'serp-key' },
    });
    expect(r.outputs.json).toHaveLength(3);
    // The first result is cited with its "about this result" description.
    expect(r.text).toContain('About source 1 of temporal io.');
    expect(r.text).toContain('Google snippet 2 about temporal io.');
  });

  it("treats SerpApi's no-results answer as no results, a bad key as TOOL_AUTH and an exhausted account as retryable", async () => {
    expect(await call(googleSearch, { params: { api_key: 'serp-key' }, args: { q: 'nothing' } })).toMatchObject({ text: '', outputs: { json: [] } });
    await refused(call(googleSearch, { params: { api_key: 'bad-key' }, args: { q: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    const e = await refused(
      call(googleSearch, { env: { ...svc.env, SERPAPI_API_KEY: 'serp-env-key' }, args: { q: 'ratelimit' } }),
      'TOOL_UNAVAILABLE',
      true,
      'serp-env-key',
    );
    expect(e.message).toMatch(/run out of searches/);
  });
});

describe('GoogleScholar (SerpApi google_scholar)', () => {
  it('maps RAGFlow params onto the Scholar engine and cites authors and abstracts', async () => {
    const r = await call(googleScholarSearch, {
      params: { api_key: 'serp-key', top_n: 5, sort_by: 'date', year_low: 2020, year_high: 2024, patents: false },
      args: { query: 'protein folding' },
    });
    expect(svc.requestsFor('protein folding')[0]!.query).toMatchObject({
      engine: 'google_scholar',
      num: '5',
      scisbd: '1',
      as_ylo: '2020',
      as_yhi: '2024',
      as_sdt: '0',
    });
    expect(r.text).toContain('author: A Author,B Author');
    expect(r.text).toContain('Abstract: Scholar abstract 1 on protein folding.');
  });
});

describe('ArXiv (Atom API)', () => {
  it('queries with sortBy and max_results and cites the PDFs with their abstracts', async () => {
    const r = await call(arxivSearch, { params: { top_n: 2, sort_by: 'relevance' }, args: { query: 'graph neural networks' } });
    expect(svc.requestsFor('graph neural networks')[0]).toMatchObject({
      path: '/arxiv/api/query',
      query: { sortBy: 'relevance', sortOrder: 'descending', max_results: '2' },
    });
    expect(r.outputs.json).toEqual([
      expect.objectContaining({
        title: 'graph neural networks paper 1',
        url: 'http://arxiv.org/pdf/2411.00001v1',
        authors: ['Ada Author', 'Bo Author'],
        summary: 'Abstract 1: we study graph neural networks.',
      }),
      expect.objectContaining({ title: 'graph neural networks paper 2' }),
    ]);
    expect(urls(r).sort()).toEqual(['http://arxiv.org/pdf/2411.00001v1', 'http://arxiv.org/pdf/2411.00002v1']);
  });

  it("reports arXiv's error entry as a bad request and its 503 throttle as retryable", async () => {
    expect((await refused(call(arxivSearch, { args: { query: 'ti:[broken' } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(/malformed search query/);
    await refused(call(arxivSearch, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });
});

describe('PubMed (E-utilities)', () => {
  it('esearch then efetch; each article cited with its reference block', async () => {
    const r = await call(pubmedSearch, { params: { top_n: 2, email: 'me@example.org' }, args: { query: 'gut microbiome' } });
    const [search] = svc.requestsFor('gut microbiome');
    expect(search).toMatchObject({ path: '/pubmed/esearch.fcgi', query: { db: 'pubmed', term: 'gut microbiome', retmax: '2', email: 'me@example.org' } });
    expect(svc.requests.find((q) => q.path === '/pubmed/efetch.fcgi' && q.query.id === '39000001,39000002')?.query).toMatchObject({
      db: 'pubmed',
      retmode: 'xml',
    });
    expect(r.text).toContain(
      'Title: Study 1 of gut flora.\nAuthors: Marie Curie, Louis Pasteur\nJournal: Journal of Stand-ins\nVolume: 12\nIssue: 3\nPages: 100-110\nDOI: 10.1000/standin.39000001\nAbstract: Background 1 of the study.',
    );
    expect(urls(r).sort()).toEqual(['https://pubmed.ncbi.nlm.nih.gov/39000001', 'https://pubmed.ncbi.nlm.nih.gov/39000002']);
  });

  it("answers nothing without efetch when nothing matches; NCBI's 429 is retryable", async () => {
    expect((await call(pubmedSearch, { args: { query: 'nothing' } })).text).toBe('');
    expect(svc.requestsFor('nothing').filter((q) => q.path === '/pubmed/esearch.fcgi')).toHaveLength(1);
    await refused(call(pubmedSearch, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });
});

describe('GitHub (repository search)', () => {
  it('searches repositories by stars and cites description and stars', async () => {
    const r = await call(githubSearch, { params: { top_n: 2 }, args: { query: 'workflow engine' } });
    expect(svc.requestsFor('workflow engine')[0]).toMatchObject({
      path: '/github/search/repositories',
      query: { sort: 'stars', order: 'desc', per_page: '2' },
    });
    expect(r.text).toContain('Repository 1 for workflow engine\n stars:500');
  });

  it("reads GitHub's rate limit (403 + x-ratelimit-remaining: 0) as retryable, a bad query (422) and a bad token as not", async () => {
    expect((await refused(call(githubSearch, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true)).message).toMatch(/rate limit/);
    expect((await refused(call(githubSearch, { args: { query: 'in:name' } }), 'TOOL_BAD_REQUEST', false)).message).toMatch(/Validation Failed/);
    await refused(call(githubSearch, { env: { ...svc.env, GITHUB_TOKEN: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
  });
});

describe('BGPT, KeenableSearch, QueritSearch, QueritContents', () => {
  it('BGPT: posts query and num_results (and the key) and cites the structured evidence', async () => {
    const r = await call(bgptSearch, { params: { top_n: 2, api_key: 'bgpt-key', days_back: 30 }, args: { query: 'vitamin d' } });
    expect(svc.requestsFor('vitamin d')[0]!.json).toEqual({ query: 'vitamin d', num_results: 2, api_key: 'bgpt-key', days_back: 30 });
    expect(r.text).toContain('Methods: Randomized controlled trial');
    expect(r.text).toContain('Sample size / population: 240 adults');
    // No url: the DOI stands in, as in RAGFlow.
    expect(urls(r)).toContain('10.5555/bgpt.2');
    await refused(call(bgptSearch, { params: { api_key: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    await refused(call(bgptSearch, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });

  it('Keenable: keyless public endpoint, or keyed with X-API-Key; the model may pick a site', async () => {
    const r = await call(keenableSearch, { params: { top_n: 2 }, args: { query: 'rust', site: 'blog.rust-lang.org' } });
    expect(svc.requestsFor('rust')[0]).toMatchObject({ path: '/keenable/v1/search/public', json: { query: 'rust', mode: 'pro', site: 'blog.rust-lang.org' } });
    expect(r.outputs.json).toHaveLength(2);
    expect(r.text).toContain('Keenable text 1 about rust.');
    await call(keenableSearch, { params: { api_key: 'k-key', mode: 'realtime' }, args: { query: 'keyed' } });
    expect(svc.requestsFor('keyed')[0]).toMatchObject({ path: '/keenable/v1/search', json: { mode: 'realtime' } });
    expect(svc.requestsFor('keyed')[0]!.headers['x-api-key']).toBe('k-key');
    await refused(call(keenableSearch, { params: { mode: 'realtime' }, args: { query: 'x' } }), 'TOOL_AUTH', false);
    await refused(call(keenableSearch, { args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
  });

  it("Querit: RAGFlow's camelCase body with filters; json is the whole answer; key refused / rate limit", async () => {
    const r = await call(queritSearch, {
      params: { api_key: 'querit-key', count: 5, chunks_per_doc: 2, site_include: ['a.example'], time_range: 'w1', language_include: ['en'] },
      args: { query: 'llm agents', count: 2 },
    });
    expect(svc.requestsFor('llm agents')[0]!.json).toEqual({
      query: 'llm agents',
      count: 2,
      chunksPerDoc: 2,
      filters: { sites: { include: ['a.example'] }, timeRange: { date: 'w1' }, languages: { include: ['en'] } },
    });
    expect((r.outputs.json as { search_id: string }).search_id).toBe('sid-1');
    expect(urls(r)).toHaveLength(2);
    await refused(call(queritSearch, { params: { api_key: 'bad-key' }, args: { query: 'x' } }), 'TOOL_AUTH', false, 'bad-key');
    await refused(call(queritSearch, { env: { ...svc.env, QUERIT_API_KEY: 'querit-key' }, args: { query: 'ratelimit' } }), 'TOOL_UNAVAILABLE', true);
    const c = await call(queritContents, { params: { api_key: 'querit-key' }, args: { urls: ['https://a.example/x'] } });
    expect(c.outputs.json).toMatchObject({ results: [{ url: 'https://a.example/x', content: '# Content of https://a.example/x' }] });
    await refused(call(queritContents, { params: { api_key: 'querit-key' }, args: { urls: ['ftp://a'] } }), 'TOOL_BAD_REQUEST', false);
  });
});
