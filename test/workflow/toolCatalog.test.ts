/**
 * RAGFlow's tool catalog in real runs on the Temporal dev server, against one local stand-in for
 * all their services: each tool as a canvas node (outputs RAGFlow names, citations in
 * `message_end`), all of them as tools of one Agent driven by the scripted model's function
 * calls, a rate limit retried per `max_retries` and a refused key not retried (RAGFlow's stock
 * research template: stockResearch.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dsl } from '../helpers/canvasKit';
import { startToolCanvasHarness, toolCall as tc, type ToolCanvasHarness } from '../helpers/toolCanvasHarness';

let h: ToolCanvasHarness;

beforeAll(async () => {
  h = await startToolCanvasHarness('tenant-tool-catalog', {
    SERPAPI_API_KEY: 'serp-key',
    QUERIT_API_KEY: 'querit-key',
    // Crawler's pages are the model's or the canvas's choice: the stand-in on loopback must be allowed.
    NETWORK_ALLOW_HOSTS: '127.0.0.1',
  });
});

afterAll(async () => {
  await h?.stop();
});

const run = (title: string, canvas: Record<string, unknown>, query: string) => h.run(title, canvas, query);
const script = (marker: string, replies: Parameters<ToolCanvasHarness['script']>[1]) => h.script(marker, replies);

/** [component, params, query, output to show, text the output must hold, whether it cites]. */
const NODES: Array<[string, Record<string, unknown>, string, string, string, boolean]> = [
  ['Bing', { api_key: 'bing-key', top_n: 2 }, 'bing node', 'formalized_content', 'Bing snippet 2 about bing node.', true],
  ['Google', { api_key: 'serp-key', num: 2 }, 'google node', 'formalized_content', 'Google snippet 2 about google node.', true],
  ['GoogleScholar', { top_n: 2 }, 'scholar node', 'formalized_content', 'Scholar abstract 2 on scholar node.', true],
  ['ArXiv', { top_n: 2 }, 'arxiv node', 'formalized_content', 'Abstract 2: we study arxiv node.', true],
  ['PubMed', { top_n: 2 }, 'pubmed node', 'formalized_content', 'Authors: Marie Curie, Louis Pasteur', true],
  ['GitHub', { top_n: 2 }, 'github node', 'formalized_content', 'Repository 2 for github node', true],
  ['BGPT', { top_n: 2 }, 'bgpt node', 'formalized_content', 'Results: Effect 2 observed.', true],
  ['KeenableSearch', { top_n: 2 }, 'keenable node', 'formalized_content', 'Keenable text 2 about keenable node.', true],
  ['QueritSearch', { count: 2 }, 'querit node', 'formalized_content', 'Querit snippet 2.', true],
  ['YahooFinance', { info: false, news: false, balance_sheet: true }, 'MSFT', 'report', '| Total Assets | 364980000000 |', false],
  ['DeepL', { auth_key: 'deepl-key', target_lang: 'DE' }, '你好世界', 'formalized_content', '[DE] 你好世界', false],
  ['QWeather', { web_apikey: 'qw-key', type: 'airquality' }, 'Shanghai', 'formalized_content', '"aqi":"42"', false],
  ['TuShare', { token: 'tushare-token', keyword: 'moutai' }, 'news please', 'content', 'MOUTAI announces dividend.', false],
  ['Jin10', { secret_key: 'jin10-key' }, 'flash please', 'content', 'Flash 1 (category 1)', false],
];

describe('the catalog as canvas nodes', () => {
  it.each(NODES)('%s runs as a node with its RAGFlow outputs', async (name, params, query, output, expected, cites) => {
    const id = `${name}:node`;
    const r = await run(
      `${name} node`,
      dsl({
        begin: { name: 'Begin', downstream: [id] },
        [id]: { name, params, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: [`{${id}@${output}}`] } },
      }),
      query,
    );
    expect(r.result.status, JSON.stringify(r.result.error)).toBe('finished');
    expect(String(r.finished(id)!.outputs[output])).toContain(expected);
    expect(r.result.content).toContain(expected);
    if (cites) expect(Object.keys(r.reference?.chunks ?? {}).length).toBeGreaterThan(0);
  });

  it('Crawler reads a page (through the guard) as markdown', async () => {
    const r = await run(
      'crawler node',
      dsl({
        begin: { name: 'Begin', downstream: ['Crawler:c'] },
        'Crawler:c': { name: 'Crawler', downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{Crawler:c@formalized_content}'] } },
      }),
      `${h.svc.url}/pages/article`,
    );
    expect(r.result.content).toContain('Temporal keeps [state](https://temporal.io).');
  });

  it('keys from params never reach workflow history', async () => {
    const r = await run(
      'key hygiene',
      dsl({ begin: { name: 'Begin', downstream: ['DeepL:d'] }, 'DeepL:d': { name: 'DeepL', params: { auth_key: 'deepl-secret-key-123' } } }),
      'secret test',
    );
    expect(r.result.status).toBe('finished');
    expect(await r.history()).not.toContain('deepl-secret-key-123');
    expect(JSON.stringify(r.events)).not.toContain('deepl-secret-key-123');
  });
});

describe('the catalog as Agent tools', () => {
  it('offers each tool with its RAGFlow function name, runs the parallel calls and cites the search results', async () => {
    const tools = [
      ['ArXiv', {}, 'arxiv_search_0', { query: 'agent arxiv' }],
      ['PubMed', {}, 'pubmed_search_1', { query: 'agent pubmed' }],
      ['GitHub', {}, 'github_search_2', { query: 'agent github' }],
      ['Google', { api_key: 'serp-key' }, 'google_search_3', { q: 'agent google' }],
      ['Bing', { api_key: 'bing-key' }, 'bing_search_4', { query: 'agent bing' }],
      ['GoogleScholar', {}, 'google_scholar_search_5', { query: 'agent scholar' }],
      ['BGPT', {}, 'bgpt_search_6', { query: 'agent bgpt' }],
      ['KeenableSearch', {}, 'keenable_search_7', { query: 'agent keenable', site: 'docs.example' }],
      ['QueritSearch', {}, 'querit_search_8', { query: 'agent querit' }],
      ['YahooFinance', { info: true, news: false }, 'yahoo_finance_9', { stock_code: 'TSLA' }],
      ['DeepL', { auth_key: 'deepl-key' }, 'deepl_translate_10', { query: '谢谢' }],
      ['QWeather', { web_apikey: 'qw-key' }, 'qweather_11', { query: 'Chengdu' }],
      ['Crawler', {}, 'web_crawler_12', { query: `${h.svc.url}/pages/article` }],
      ['AkShare', {}, 'akshare_stock_news_13', { query: '600519' }],
    ] as const;
    const calls = script('MARK-catalog-agent', [{ toolCalls: tools.map(([, , fn, args], i) => tc(`c${i}`, fn, args)) }, { content: 'Done [ID:0].' }]);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: {
          llm_id: 'scripted@OpenAI',
          sys_prompt: 'MARK-catalog-agent Research.',
          tools: tools.map(([name, params]) => ({ component_name: name, name, params })),
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const r = await run('catalog agent', canvas, 'research everything');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Done [ID:0].' });
    const offered = (calls[0]!.body.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>).map((t) => t.function);
    expect(offered.map((f) => f.name)).toEqual(tools.map(([, , fn]) => fn));
    expect(Object.keys(offered[3]!.parameters.properties)).toEqual(['q', 'start', 'num']);
    expect(Object.keys(offered[7]!.parameters.properties)).toEqual(['query', 'site']);

    const results = calls[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    const expected = [
      'Abstract 1: we study agent arxiv.',
      'Journal: Journal of Stand-ins',
      'Repository 1 for agent github',
      'Google snippet 2 about agent google.',
      'Bing snippet 1 about agent bing.',
      'Scholar abstract 1 on agent scholar.',
      'Methods: Randomized controlled trial',
      'agent keenable on docs.example 1',
      'Querit snippet 1.',
      '| symbol | TSLA |',
      '[EN-GB] 谢谢',
      '"temp":"6"',
      '# Durable workflows',
      '<a href="http://finance.eastmoney.com/a/202611240000.html">600519 新闻 1</a>',
    ];
    expected.forEach((text, i) => expect(results[i], tools[i]![0]).toContain(text));
    const cited = Object.values(r.reference!.chunks).map((c) => c.url);
    expect(cited).toEqual(
      expect.arrayContaining([
        'http://arxiv.org/pdf/2411.00001v1',
        'https://pubmed.ncbi.nlm.nih.gov/39000001',
        'https://web.bing.example/agent%20bing/1',
        'https://google.example/agent%20google/1',
      ]),
    );
  });
});

describe('the catalog failing', () => {
  it("retries a service's rate limit as max_retries allows, then fails with its message", async () => {
    const r = await run(
      'yahoo ratelimit',
      dsl({
        begin: { name: 'Begin', downstream: ['YahooFinance:y'] },
        'YahooFinance:y': { name: 'YahooFinance', params: { stock_code: 'RATELIMIT', max_retries: 1, delay_after_error: 0 } },
      }),
      'x',
    );
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/YahooFinance answered HTTP 429/);
    expect(h.svc.requestsFor('RATELIMIT').filter((q) => q.path.startsWith('/yahoo/v10/'))).toHaveLength(2);
  });

  it('does not retry a refused key', async () => {
    const r = await run(
      'bing bad key',
      dsl({
        begin: { name: 'Begin', downstream: ['Bing:b'] },
        'Bing:b': { name: 'Bing', params: { api_key: 'bad-key', max_retries: 3, delay_after_error: 0 } },
      }),
      'refused key',
    );
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/invalid subscription key/);
    expect(h.svc.requestsFor('refused key')).toHaveLength(1);
  });
});
