/**
 * SearXNG, DuckDuckGo and Wikipedia in real runs on the Temporal dev server, against local
 * stand-ins of their APIs: as canvas nodes (the request each service received, the node outputs
 * RAGFlow names, citations reaching `message_end`), as tools of an Agent driven by the scripted
 * model, and their failures (5xx retried per max_retries, 4xx not retried).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startDuckDuckGoServer } from '../helpers/duckduckgoServer';
import type { StandIn } from '../helpers/httpStandIn';
import { startScriptedLlm, type RecordedCall, type Reply, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startSearxngServer } from '../helpers/searxngServer';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { startWikipediaServer } from '../helpers/wikipediaServer';

let store: Store;
let llm: ScriptedLlm;
let searx: StandIn;
let ddg: StandIn;
let wiki: StandIn;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-web-search';

beforeAll(async () => {
  [store, llm, searx, ddg, wiki, temporal] = await Promise.all([
    openStore({}),
    startScriptedLlm(),
    startSearxngServer(),
    startDuckDuckGoServer(),
    startWikipediaServer(),
    connectTemporal(),
  ]);
  await store.tenants.ensure(tenantId, 'web search tests');
  // NETWORK_ALLOW_HOSTS: a component's own searxng_url passes the network guard, and the stand-ins are on loopback.
  const env = {
    SEARXNG_BASE_URL: searx.url,
    DUCKDUCKGO_BASE_URL: ddg.url,
    DUCKDUCKGO_NEWS_BASE_URL: ddg.url,
    WIKIPEDIA_BASE_URL: `${wiki.url}/{lang}`,
    NETWORK_ALLOW_HOSTS: '127.0.0.1',
  };
  worker = await startWorker({ nativeConnection: temporal.nativeConnection, store, llmBaseUrl: llm.url, env });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), searx?.stop(), ddg?.stop(), wiki?.stop(), store?.close()]);
});

async function run(title: string, canvas: Record<string, unknown>, query: string) {
  const saved = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const result = (await temporal.client.workflow.getHandle(launched.workflowId).result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  const finished = (id: string) =>
    events.find((e) => e.event === 'node_finished' && e.data.component_id === id)?.data as { outputs: Record<string, unknown>; error: unknown } | undefined;
  const reference = events.find((e) => e.event === 'message_end')?.data.reference as
    { chunks: Record<string, { url: string; content: string; document_name: string }>; doc_aggs: Record<string, unknown> } | undefined;
  return { result, events, finished, reference };
}

/** Begin → the tool node → a Message showing its formalized_content. */
function toolCanvas(id: string, params: Record<string, unknown>): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: [id] },
    [id]: { name: id.split(':')[0]!, params, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: [`{${id}@formalized_content}`] } },
  });
}

describe('web search tools as canvas nodes', () => {
  it('SearXNG: queries the component instance with RAGFlow parameters; outputs and citations reach the run', async () => {
    const r = await run('searxng node', toolCanvas('SearXNG:s', { searxng_url: `${searx.url}/searx`, top_n: 3 }), 'durable execution');
    expect(r.result.status).toBe('finished');
    expect(searx.requestsFor('durable execution')).toMatchObject([
      {
        method: 'GET',
        path: '/searx/search',
        query: { q: 'durable execution', format: 'json', categories: 'general', language: 'auto', safesearch: '1', pageno: '1' },
      },
    ]);

    const out = r.finished('SearXNG:s')!.outputs;
    expect((out.json as Array<{ url: string; engine: string }>).map((x) => x.url)).toEqual(
      [1, 2, 3].map((i) => `https://searx.example/durable%20execution/${i}`),
    );
    expect((out.json as Array<{ engine: string }>)[0]!.engine).toBe('duckduckgo');
    expect(out.formalized_content).toContain('SearXNG finding 2 about durable execution.');
    expect(r.result.content).toContain('durable execution result 1');
    // Chunks are keyed by citation id ([ID:n]), not in result order.
    expect(
      Object.values(r.reference!.chunks)
        .map((c) => c.url)
        .sort(),
    ).toEqual([1, 2, 3].map((i) => `https://searx.example/durable%20execution/${i}`));
    expect(Object.keys(r.reference!.doc_aggs)).toHaveLength(3);
  });

  it('SearXNG: without searxng_url it uses SEARXNG_BASE_URL', async () => {
    const r = await run('searxng env', toolCanvas('SearXNG:s', {}), 'instance from env');
    expect(r.result.status).toBe('finished');
    expect(searx.requestsFor('instance from env')[0]!.path).toBe('/search');
  });

  it('DuckDuckGo: the news channel reads news.js with a vqd token; the web channel pages through the HTML results', async () => {
    const news = await run('ddg news', toolCanvas('DuckDuckGo:d', { channel: 'news', top_n: 2 }), 'solar storms');
    expect(news.result.status).toBe('finished');
    expect(ddg.requestsFor('solar storms').map((q) => q.path)).toEqual(['/', '/news.js']);
    const items = news.finished('DuckDuckGo:d')!.outputs.json as Array<Record<string, string>>;
    expect(items.map((x) => x.url)).toEqual(['https://news.example/solar%20storms/1', 'https://news.example/solar%20storms/2']);
    expect(items[0]).toMatchObject({ source: 'Example News 1', body: 'Breaking 1: solar storms in the news.' });
    expect(
      Object.values(news.reference!.chunks)
        .map((c) => c.document_name)
        .sort(),
    ).toEqual(['solar storms headline 1', 'solar storms headline 2']);

    const web = await run('ddg web', toolCanvas('DuckDuckGo:d', { top_n: 11 }), 'tidal power');
    expect(ddg.requestsFor('tidal power').map((q) => `${q.method} ${q.path} s=${q.form.s ?? 0}`)).toEqual(['POST /html/ s=0', 'POST /html/ s=10']);
    const found = web.finished('DuckDuckGo:d')!.outputs.json as Array<{ title: string; href: string; body: string }>;
    expect(found).toHaveLength(11);
    expect(found[0]).toEqual({
      title: 'Result 1 about tidal power & more',
      href: 'https://web.example/tidal%20power/1?ref=a&b=c',
      body: "Snippet 1: tidal power explained 'simply'.",
    });
    expect(Object.keys(web.reference!.chunks)).toHaveLength(11);
  });

  it('Wikipedia: searches the component language edition and cites the article introductions', async () => {
    const r = await run('wikipedia node', toolCanvas('Wikipedia:w', { language: 'fr', top_n: 3 }), 'Lyon');
    expect(r.result.status).toBe('finished');
    expect(wiki.requestsFor('Lyon')).toMatchObject([{ path: '/fr/w/api.php', query: { list: 'search', srsearch: 'Lyon', srlimit: '3' } }]);
    const out = r.finished('Wikipedia:w')!.outputs;
    // The disambiguation page among the three hits is left out.
    expect(out.json).toEqual([
      { title: 'Lyon', url: 'https://fr.wikipedia.org/wiki/Lyon', summary: 'Lyon [fr] is article 0 about Lyon.\n\nIts second paragraph.' },
      {
        title: 'History of Lyon',
        url: 'https://fr.wikipedia.org/wiki/History_of_Lyon',
        summary: 'History of Lyon [fr] is article 2 about Lyon.\n\nIts second paragraph.',
      },
    ]);
    expect(r.result.content).toContain('Lyon [fr] is article 0 about Lyon.');
    expect(
      Object.values(r.reference!.chunks)
        .map((c) => c.url)
        .sort(),
    ).toEqual(['https://fr.wikipedia.org/wiki/History_of_Lyon', 'https://fr.wikipedia.org/wiki/Lyon']);
  });
});

describe('web search tools called by an Agent', () => {
  function script(marker: string, replies: Reply[]): RecordedCall[] {
    const seen: RecordedCall[] = [];
    llm.when((call) => {
      if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(marker))) return undefined;
      seen.push(call);
      return replies[seen.length - 1] ?? { content: `no more scripted replies for ${marker}` };
    });
    return seen;
  }
  const tc = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

  it('offers the three tools with RAGFlow function names, runs their calls and cites their results', async () => {
    const calls = script('MARK-web-agent', [
      {
        toolCalls: [
          tc('w', 'wikipedia_search_0', { query: 'Ada Lovelace' }),
          tc('d', 'duckduckgo_search_1', { query: 'lovelace day', channel: 'news' }),
          tc('s', 'searxng_search_2', { query: 'analytical engine' }),
        ],
      },
      { content: 'Ada Lovelace wrote the first program [ID:0].' },
    ]);
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: {
          llm_id: 'scripted@OpenAI',
          sys_prompt: 'MARK-web-agent You research.',
          tools: [
            { component_name: 'Wikipedia', name: 'Wikipedia', params: { language: 'en', top_n: 2 } },
            { component_name: 'DuckDuckGo', name: 'DuckDuckGo', params: { channel: 'text', top_n: 2 } },
            { component_name: 'SearXNG', name: 'SearXNG', params: { top_n: 2 } },
          ],
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const r = await run('web agent', canvas, 'who was Ada Lovelace?');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Ada Lovelace wrote the first program [ID:0].' });

    const offered = (calls[0]!.body.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>).map((t) => t.function);
    expect(offered.map((f) => f.name)).toEqual(['wikipedia_search_0', 'duckduckgo_search_1', 'searxng_search_2']);
    expect(Object.keys(offered[1]!.parameters.properties)).toEqual(['query', 'channel']);
    expect(Object.keys(offered[2]!.parameters.properties)).toEqual(['query']);

    const results = calls[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results[0]).toContain('Ada Lovelace [en] is article 0 about Ada Lovelace.');
    // The model asked for news: its channel wins over the component's `text`.
    expect(results[1]).toContain('Breaking 1: lovelace day in the news.');
    expect(ddg.requestsFor('lovelace day').map((q) => q.path)).toEqual(['/', '/news.js']);
    expect(results[2]).toContain('SearXNG finding 1 about analytical engine.');

    const cited = Object.values(r.reference!.chunks).map((c) => c.url);
    expect(cited).toEqual(
      expect.arrayContaining([
        'https://en.wikipedia.org/wiki/Ada_Lovelace',
        'https://news.example/lovelace%20day/1',
        'https://searx.example/analytical%20engine/1',
      ]),
    );
    expect(r.events.filter((e) => e.event === 'tool_call').map((e) => (e.data as { function: string; error: unknown }).error)).toEqual([null, null, null]);
  });
});

describe('web search tool failures', () => {
  it('retries a 5xx answer as max_retries allows and then succeeds', async () => {
    searx.failFor('flaky search', [503, 502]);
    const r = await run('searxng flaky', toolCanvas('SearXNG:s', { max_retries: 2, delay_after_error: 0 }), 'flaky search');
    expect(r.result.status).toBe('finished');
    expect(searx.requestsFor('flaky search')).toHaveLength(3);
  });

  it('fails with the service error once max_retries is spent', async () => {
    ddg.failFor('ddg down', [503, 503, 503, 503]);
    const r = await run('ddg down', toolCanvas('DuckDuckGo:d', { max_retries: 1, delay_after_error: 0 }), 'ddg down');
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/DuckDuckGo answered HTTP 503/);
    expect(ddg.requestsFor('ddg down')).toHaveLength(2);
    expect(r.events.at(-1)!.event).toBe('run_failed');
  });

  it('keeps a slow search alive past the heartbeat timeout instead of retrying it', async () => {
    // The worker's heartbeat timeout is 2 s here; the instance takes 3.5 s to answer.
    searx.delayFor('slow search', 3500);
    const r = await run('searxng slow', toolCanvas('SearXNG:s', { max_retries: 2, delay_after_error: 0 }), 'slow search');
    expect(r.result.status).toBe('finished');
    expect(searx.requestsFor('slow search')).toHaveLength(1);
  });

  it('does not retry a request the service rejects (4xx)', async () => {
    wiki.failFor('rejected', [400, 400, 400]);
    const r = await run('wiki rejected', toolCanvas('Wikipedia:w', { max_retries: 3, delay_after_error: 0 }), 'rejected');
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/Wikipedia answered HTTP 400/);
    expect(wiki.requestsFor('rejected')).toHaveLength(1);
  });
});
