/**
 * Stand-ins for the search and research APIs of RAGFlow's tools, answering in each service's
 * documented shapes (recorded from their public docs): Bing Web Search v7, SerpApi (Google and
 * Google Scholar engines), arXiv's Atom API, NCBI E-utilities (esearch JSON, efetch XML), GitHub's
 * repository search, BGPT, Keenable and Querit. Mounted by toolServices.ts under one prefix each.
 * Conventions for tests: the query `ratelimit` gets the service's rate-limit answer, the key
 * `bad-key` its refused-credentials answer.
 */
import { json, type Answer, type RecordedRequest } from './httpStandIn';

const slug = (q: string) => encodeURIComponent(q);
const xml = (body: string, status = 200): Answer => ({ status, body, contentType: 'application/atom+xml; charset=utf-8' });

export function bing(req: RecordedRequest, path: string): Answer {
  const key = req.headers['ocp-apim-subscription-key'];
  if (!key)
    return json(
      {
        error: { code: '401', message: 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.' },
      },
      401,
    );
  if (key === 'bad-key')
    return json(
      { error: { code: '401', message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.' } },
      401,
    );
  const q = req.query.q ?? '';
  if (q === 'ratelimit')
    return { ...json({ error: { code: '429', message: 'Rate limit is exceeded. Try again in 1 seconds.' } }, 429), headers: { 'retry-after': '1' } };
  const n = Number(req.query.count ?? 10);
  if (path === '/v7.0/news/search')
    return json({
      _type: 'News',
      value: Array.from({ length: Math.min(n, 3) }, (_, i) => ({
        name: `${q} news ${i + 1}`,
        url: `https://news.bing.example/${slug(q)}/${i + 1}`,
        description: `Bing news ${i + 1} about ${q}.`,
        datePublished: '2026-11-20T08:00:00.0000000Z',
        provider: [{ _type: 'Organization', name: 'Example Wire' }],
      })),
    });
  if (path !== '/v7.0/search') return json({ error: { code: 'ResourceNotFound', message: 'Resource not found' } }, 404);
  return json({
    _type: 'SearchResponse',
    queryContext: { originalQuery: q },
    webPages: {
      webSearchUrl: `https://www.bing.com/search?q=${slug(q)}`,
      totalEstimatedMatches: 1000,
      value: Array.from({ length: Math.min(n, 5) }, (_, i) => ({
        id: `https://api.bing.microsoft.com/api/v7/#WebPages.${i}`,
        name: `${q} page ${i + 1}`,
        url: `https://web.bing.example/${slug(q)}/${i + 1}`,
        displayUrl: `web.bing.example/${slug(q)}/${i + 1}`,
        snippet: `Bing snippet ${i + 1} about ${q}.`,
        language: 'en',
      })),
    },
  });
}

export function serpapi(req: RecordedRequest): Answer {
  const key = req.query.api_key;
  if (!key || key === 'bad-key') return json({ error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' }, 401);
  const q = req.query.q ?? '';
  if (q === 'ratelimit') return json({ error: 'Your account has run out of searches.' }, 429);
  const meta = { search_metadata: { id: 'stand-in', status: 'Success' }, search_parameters: { ...req.query, api_key: undefined } };
  if (q === 'nothing') return json({ ...meta, error: "Google hasn't returned any results for this query." });
  if (req.query.engine === 'google_scholar')
    return json({
      ...meta,
      organic_results: [1, 2].map((i) => ({
        position: i - 1,
        title: `${q} paper ${i}`,
        result_id: `r${i}`,
        link: `https://scholar.example/${slug(q)}/${i}`,
        snippet: `Scholar abstract ${i} on ${q}.`,
        publication_info: { summary: `A Author, B Author - Journal ${i}, 2024`, authors: [{ name: 'A Author' }, { name: 'B Author' }] },
      })),
    });
  const n = Number(req.query.num ?? 10);
  return json({
    ...meta,
    organic_results: Array.from({ length: Math.min(n, 4) }, (_, i) => ({
      position: i + 1,
      title: `${q} Google result ${i + 1}`,
      link: `https://google.example/${slug(q)}/${i + 1}`,
      snippet: `Google snippet ${i + 1} about ${q}.`,
      ...(i === 0 ? { about_this_result: { source: { description: `About source 1 of ${q}.` } } } : {}),
    })),
  });
}

export function arxiv(req: RecordedRequest): Answer {
  const q = req.query.search_query ?? '';
  if (q === 'ratelimit') return { status: 503, body: 'Rate exceeded.', contentType: 'text/plain', headers: { 'retry-after': '3' } };
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom"><title>arXiv Query: search_query=${q}</title>`;
  if (q.includes('['))
    return xml(
      `${head}<entry><id>http://arxiv.org/api/errors#incorrect_search_query</id><title>Error</title><summary>malformed search query</summary><link href="http://arxiv.org/api/errors#incorrect_search_query" rel="alternate" type="text/html"/></entry></feed>`,
    );
  const n = Math.min(Number(req.query.max_results ?? 10), 3);
  const entries = Array.from(
    { length: n },
    (_, i) =>
      `<entry><id>http://arxiv.org/abs/2411.0000${i + 1}v1</id><updated>2024-11-0${i + 1}T00:00:00Z</updated><published>2024-11-0${i + 1}T00:00:00Z</published>` +
      `<title>${q} paper\n  ${i + 1}</title><summary>  Abstract ${i + 1}: we study ${q}.\n</summary>` +
      `<author><name>Ada Author</name></author><author><name>Bo Author</name></author>` +
      `<link href="http://arxiv.org/abs/2411.0000${i + 1}v1" rel="alternate" type="text/html"/><link title="pdf" href="http://arxiv.org/pdf/2411.0000${i + 1}v1" rel="related" type="application/pdf"/>` +
      `<arxiv:primary_category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/><category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/></entry>`,
  );
  return xml(`${head}<opensearch:totalResults>${n}</opensearch:totalResults>${entries.join('')}</feed>`);
}

export function pubmed(req: RecordedRequest, path: string): Answer {
  if (req.query.term === 'ratelimit') return json({ error: 'API rate limit exceeded', 'api-key': '127.0.0.1', count: '4', limit: '3' }, 429);
  if (path === '/esearch.fcgi') {
    const term = req.query.term ?? '';
    if (!term.trim()) return json({ header: { type: 'esearch', version: '0.3' }, esearchresult: { ERROR: 'Empty term and query_key - nothing todo' } });
    const ids = term === 'nothing' ? [] : ['39000001', '39000002'].slice(0, Number(req.query.retmax ?? 20));
    return json({
      header: { type: 'esearch', version: '0.3' },
      esearchresult: { count: String(ids.length), retmax: String(ids.length), retstart: '0', idlist: ids, querytranslation: term },
    });
  }
  if (path !== '/efetch.fcgi') return json({ error: 'unknown' }, 404);
  const articles = (req.query.id ?? '')
    .split(',')
    .map(
      (id, i) =>
        `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">${id}</PMID><Article PubModel="Print">` +
        `<Journal><JournalIssue CitedMedium="Internet"><Volume>${12 + i}</Volume><Issue>3</Issue></JournalIssue><Title>Journal of Stand-ins</Title></Journal>` +
        `<ArticleTitle>Study <i>${i + 1}</i> of gut flora.</ArticleTitle><Pagination><MedlinePgn>100-110</MedlinePgn></Pagination>` +
        `<Abstract><AbstractText Label="BACKGROUND">Background ${i + 1} of the study.</AbstractText><AbstractText Label="RESULTS">Results.</AbstractText></Abstract>` +
        `<AuthorList CompleteYN="Y"><Author ValidYN="Y"><LastName>Curie</LastName><ForeName>Marie</ForeName></Author><Author ValidYN="Y"><LastName>Pasteur</LastName><ForeName>Louis</ForeName></Author></AuthorList>` +
        `</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">${id}</ArticleId><ArticleId IdType="doi">10.1000/standin.${id}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`,
    );
  return {
    status: 200,
    contentType: 'text/xml; charset=UTF-8',
    body: `<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">\n<PubmedArticleSet>${articles.join('')}</PubmedArticleSet>`,
  };
}

export function github(req: RecordedRequest): Answer {
  const q = req.query.q ?? '';
  if (req.headers.authorization === 'Bearer bad-key')
    return json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' }, 401);
  if (q === 'ratelimit')
    return {
      ...json(
        {
          message: "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)",
          documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
        },
        403,
      ),
      headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1900000000' },
    };
  if (q.startsWith('in:'))
    return json(
      {
        message: 'Validation Failed',
        errors: [{ resource: 'Search', field: 'q', code: 'missing' }],
        documentation_url: 'https://docs.github.com/v3/search',
        status: '422',
      },
      422,
    );
  const n = Math.min(Number(req.query.per_page ?? 30), 3);
  return json({
    total_count: n,
    incomplete_results: false,
    items: Array.from({ length: n }, (_, i) => ({
      id: 1000 + i,
      name: `${q.replace(/\s+/g, '-')}-${i + 1}`,
      full_name: `octo/${q.replace(/\s+/g, '-')}-${i + 1}`,
      html_url: `https://github.com/octo/${slug(q)}-${i + 1}`,
      description: `Repository ${i + 1} for ${q}`,
      stargazers_count: 500 - i * 100,
      watchers: 500 - i * 100,
      language: 'TypeScript',
    })),
  });
}

export function bgpt(req: RecordedRequest): Answer {
  const body = (req.json ?? {}) as { query?: string; num_results?: number; api_key?: string };
  if (body.api_key === 'bad-key') return json({ error: 'Invalid API key' }, 401);
  if (body.query === 'ratelimit') return json({ error: 'Too many requests, slow down' }, 429);
  return json({
    results: Array.from({ length: Math.min(body.num_results ?? 10, 2) }, (_, i) => ({
      title: `${body.query} trial ${i + 1}`,
      authors: ['R. Searcher'],
      journal: 'Evidence Letters',
      year: 2023,
      doi: `10.5555/bgpt.${i + 1}`,
      url: i === 0 ? `https://bgpt.example/paper/${i + 1}` : null,
      abstract: `Abstract of trial ${i + 1} on ${body.query}.`,
      methods: 'Randomized controlled trial',
      sample_size_and_population: `${120 * (i + 1)} adults`,
      results_and_conclusions: `Effect ${i + 1} observed.`,
      limitations: 'Small sample',
    })),
  });
}

export function keenable(req: RecordedRequest, path: string): Answer {
  const body = (req.json ?? {}) as { query?: string; site?: string };
  const key = req.headers['x-api-key'];
  if (path === '/v1/search' && (!key || key === 'bad-key')) return json({ detail: 'Invalid API key' }, 401);
  if (path !== '/v1/search' && path !== '/v1/search/public') return json({ detail: 'Not Found' }, 404);
  if (body.query === 'ratelimit') return json({ detail: 'Rate limit exceeded' }, 429);
  const site = body.site ?? 'keenable.example';
  return json({
    results: [1, 2, 3].map((i) => ({
      title: `${body.query} on ${site} ${i}`,
      url: `https://${site}/${slug(body.query ?? '')}/${i}`,
      snippet: `Keenable  text\n${i} about ${body.query}.`,
      description: '',
    })),
  });
}

export function querit(req: RecordedRequest, path: string): Answer {
  if (req.headers.authorization !== 'Bearer querit-key') return json({ error_code: 401, error_msg: 'invalid api key' }, 401);
  const body = (req.json ?? {}) as { query?: string; count?: number; urls?: string[] };
  if (body.query === 'ratelimit') return json({ error_code: 429, error_msg: 'too many requests' }, 429);
  if (path === '/v1/contents')
    return json({
      results: (body.urls ?? []).map((u) => ({ url: u, title: `Page ${u}`, content: `# Content of ${u}` })),
      statuses: (body.urls ?? []).map((u) => ({ url: u, status: 'success' })),
    });
  return json({
    took: '12ms',
    error_code: 200,
    error_msg: '',
    search_id: 'sid-1',
    query_context: { query: body.query },
    results: {
      result: Array.from({ length: Math.min(body.count ?? 10, 2) }, (_, i) => ({
        url: `https://querit.example/${slug(body.query ?? '')}/${i + 1}`,
        title: `${body.query} querit ${i + 1}`,
        snippet: `Querit snippet ${i + 1}.`,
        page_age: '2026-11-01',
      })),
    },
  });
}
