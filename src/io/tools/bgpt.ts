/**
 * BGPT client: `POST {BGPT_BASE_URL}/api/mcp-search` with `{query, num_results, api_key?, days_back?}`
 * as RAGFlow sends it (the key, optional, travels in the body). Each paper is cited with its
 * structured evidence (methods, sample, results, limitations...) in RAGFlow's layout.
 */
import { AppError } from '../../errors';
import { credential, searchExecutor, serviceBase } from './search';
import { fetchJson, positiveInt } from './webHttp';

type Paper = Record<string, unknown>;

function field(paper: Paper, ...names: string[]): string {
  for (const n of names) {
    const v = paper[n];
    if (v === null || v === undefined) continue;
    const t = (typeof v === 'object' ? JSON.stringify(v) : String(v)).trim();
    if (t) return t;
  }
  return '-';
}

const LINES: Array<[string, string[]]> = [
  ['Title', ['title']],
  ['Authors', ['authors']],
  ['Journal', ['journal']],
  ['Year', ['year']],
  ['DOI', ['doi']],
  ['Abstract', ['abstract']],
  ['Methods', ['methods_and_experimental_techniques', 'methods']],
  ['Sample size / population', ['sample_size_and_population_characteristics', 'sample_size_and_population']],
  ['Results', ['results_and_conclusions', 'results']],
  ['Limitations', ['paper_limitations_and_biases', 'limitations']],
  ['Conflicts of interest', ['conflict_of_interest_statements', 'conflict_of_interest']],
  ['Data availability', ['data_availability_statements', 'data_availability']],
  ['Blind spots', ['study_blindspots']],
  ['How to falsify', ['how_to_falsify']],
];

export const bgptSearch = searchExecutor(async (x, query) => {
  const base = serviceBase(x.env, ['BGPT_BASE_URL'], 'https://bgpt.pro');
  const key = credential(x, 'api_key', ['BGPT_API_KEY']);
  const days = positiveInt(x.params.days_back, 0);
  const res = (await fetchJson(`${base}/api/mcp-search`, {
    json: { query, num_results: positiveInt(x.params.top_n, 10), ...(key ? { api_key: key } : {}), ...(days ? { days_back: days } : {}) },
    signal: x.signal,
    env: x.env,
    service: 'BGPT',
    timeoutMs: 25_000,
    secrets: key ? [key] : [],
  })) as { results?: unknown } | null;
  if (!res || typeof res !== 'object' || !Array.isArray(res.results)) throw new AppError('TOOL_UNAVAILABLE', 'BGPT answered without a results list');
  const papers = res.results as Paper[];
  const hits = papers.map((p) => ({
    title: String(p.title || 'Untitled'),
    url: String(p.url || p.doi || ''),
    snippet: LINES.map(([label, names]) => `${label}: ${field(p, ...names)}`).join('\n'),
  }));
  return { hits, json: papers };
});
