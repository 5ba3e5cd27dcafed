/**
 * RAGFlow's `agent/tools` catalog as a whole: every tool file has a component that loads with
 * RAGFlow's defaults, offers a function to an Agent's model and has an executor; bad params are
 * rejected at load with their JSON path, as a canvas node and inside an Agent's `tools`; credential
 * params are redacted before a run's DSL reaches workflow history.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_EXECUTORS } from '../../activities/tools';
import { componentDef, componentNames } from '../../src/core/components/registry';
import { redactSecrets, SECRET_MARKER } from '../../src/core/dsl/secrets';
import { compileCanvas } from '../../src/core/engine';
import { dsl } from '../helpers/canvasKit';

/** RAGFlow's agent/tools/*.py → the component_names they define. */
const RAGFLOW_TOOLS: Record<string, string[]> = {
  'akshare.py': ['AkShare'],
  'arxiv.py': ['ArXiv'],
  'bgpt.py': ['BGPT'],
  'code_exec.py': ['CodeExec'],
  'crawler.py': ['Crawler'],
  'deepl.py': ['DeepL'],
  'duckduckgo.py': ['DuckDuckGo'],
  'email.py': ['Email'],
  'exesql.py': ['ExeSQL'],
  'github.py': ['GitHub'],
  'google.py': ['Google'],
  'googlescholar.py': ['GoogleScholar'],
  'jin10.py': ['Jin10'],
  'keenable.py': ['KeenableSearch'],
  'pubmed.py': ['PubMed'],
  'querit.py': ['QueritSearch', 'QueritContents'],
  'qweather.py': ['QWeather'],
  'retrieval.py': ['Retrieval'],
  'searxng.py': ['SearXNG'],
  'tavily.py': ['TavilySearch', 'TavilyExtract'],
  'tushare.py': ['TuShare'],
  'wencai.py': ['WenCai'],
  'wikipedia.py': ['Wikipedia'],
  'yahoofinance.py': ['YahooFinance'],
};

function problems(name: string, params: Record<string, unknown>) {
  const r = compileCanvas(
    dsl({
      begin: { name: 'Begin', downstream: [`${name}:n`, 'Agent:a'] },
      [`${name}:n`]: { name, params },
      'Agent:a': { name: 'Agent', params: { llm_id: 'm@OpenAI', tools: [{ component_name: name, name, params }] } },
    }),
  );
  return r.ok ? [] : r.problems;
}

describe("RAGFlow's tool catalog", () => {
  it.each(Object.entries(RAGFLOW_TOOLS))('%s has a counterpart that loads with defaults and offers a function', (_file, names) => {
    for (const name of names) {
      const def = componentDef(name);
      expect(def, name).toBeDefined();
      expect(problems(name, {}), name).toEqual([]);
      const meta = def!.tool!.meta(def!.params.parse({}));
      expect(meta.name).toMatch(/^[a-z0-9_]+$/);
      expect(meta.description.length).toBeGreaterThan(20);
    }
  });

  it('Bing (RAGFlow v0.x) loads too', () => {
    expect(problems('Bing', {})).toEqual([]);
  });

  it('has an executor in the toolInvoke activity for every registered tool without a call of its own', () => {
    const viaToolInvoke = componentNames().filter((name) => {
      const tool = componentDef(name)?.tool;
      return tool !== undefined && tool.call === undefined;
    });
    expect(viaToolInvoke.length).toBeGreaterThan(20);
    expect(viaToolInvoke.filter((name) => !(name in TOOL_EXECUTORS))).toEqual([]);
  });

  it('runs no executor for a component the registry does not know', () => {
    expect(Object.keys(TOOL_EXECUTORS).filter((name) => componentDef(name) === undefined)).toEqual([]);
  });

  const bad: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['ArXiv', { sort_by: 'newest' }, 'sort_by', /sort_by should be 'submittedDate' or 'lastUpdatedDate' or 'relevance'/],
    ['ArXiv', { top_n: 0 }, 'top_n', /1 or more/],
    ['PubMed', { top_n: 'many' }, 'top_n', /number/i],
    ['GitHub', { top_n: -3 }, 'top_n', /1 or more/],
    ['GoogleScholar', { sort_by: 'citations' }, 'sort_by', /'date' or 'relevance'/],
    ['GoogleScholar', { patents: 'yes' }, 'patents', /boolean/],
    ['Google', { country: 'United States' }, 'country', /Google Country/],
    ['Google', { num: 0 }, 'num', /1 or more/],
    ['Bing', { channel: 'Images' }, 'channel', /'Webpages' or 'News'/],
    ['BGPT', { days_back: 0 }, 'days_back', /1 or more/],
    ['KeenableSearch', { mode: 'fast' }, 'mode', /'pro' or 'realtime'/],
    ['QueritSearch', { time_range: 'yesterday' }, 'time_range', /dN, wN/],
    ['QueritSearch', { chunks_per_doc: 5 }, 'chunks_per_doc', /1 to 3/],
    ['QueritContents', { crawl_timeout: 90 }, 'crawl_timeout', /1 to 60/],
    ['QueritContents', { urls: ['ftp://x'] }, 'urls[0]', /absolute HTTP/],
    ['Crawler', { extract_type: 'pdf' }, 'extract_type', /'html' or 'markdown' or 'content'/],
    ['YahooFinance', { balance_sheet: 'sure' }, 'balance_sheet', /boolean/],
    ['DeepL', { target_lang: 'KLINGON' }, 'target_lang', /target_lang should be/],
    ['QWeather', { time_period: '2d' }, 'time_period', /'now' or '3d'/],
    ['QWeather', { user_type: 'gold' }, 'user_type', /'free' or 'paid'/],
    ['TuShare', { src: 'reuters' }, 'src', /src should be/],
    ['Jin10', { type: 'stocks' }, 'type', /'flash' or 'calendar'/],
    ['AkShare', { top_n: 0 }, 'top_n', /1 or more/],
    ['WenCai', { query_type: 'bonds' }, 'query_type', /query_type should be/],
  ];

  it.each(bad)('%s rejects %j at load, as a node and as an Agent tool, with its JSON path', (name, params, field, message) => {
    const found = problems(name, params);
    expect(found.map((p) => p.path)).toEqual([`$.components["${name}:n"].obj.params.${field}`, `$.components["Agent:a"].obj.params.tools[0].params.${field}`]);
    for (const p of found) expect(p.message).toMatch(message);
  });

  it("keeps every tool's credential out of workflow history", () => {
    const creds = { api_key: 'k1', auth_key: 'k2', web_apikey: 'k3', token: 'k4', secret_key: 'k5' };
    const redacted = redactSecrets(dsl({ begin: { name: 'Begin', downstream: ['X:x'] }, 'X:x': { name: 'X', params: { ...creds, query: 'q' } } })) as {
      components: Record<string, { obj: { params: Record<string, unknown> } }>;
    };
    const params = redacted.components['X:x']!.obj.params;
    for (const k of Object.keys(creds)) expect(params[k], k).toBe(SECRET_MARKER);
    expect(params.query).toBe('q');
  });
});
