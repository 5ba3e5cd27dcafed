/**
 * GitHub client: repository search (`GET {GITHUB_BASE_URL}/search/repositories?q=…&sort=stars`),
 * as RAGFlow sends it; GITHUB_TOKEN (ours) raises the anonymous rate limit. GitHub answers a rate
 * limit with 403 or 429 and a message saying so: retried later, unlike a refused token.
 */
import { AppError } from '../../errors';
import { credential, searchExecutor, serviceBase } from './search';
import { fetchJson, positiveInt, statusError } from './webHttp';

export const githubSearch = searchExecutor(async (x, query) => {
  const base = serviceBase(x.env, ['GITHUB_BASE_URL'], 'https://api.github.com');
  const token = credential(x, 'token', ['GITHUB_TOKEN']);
  const res = (await fetchJson(`${base}/search/repositories`, {
    params: { q: query, sort: 'stars', order: 'desc', per_page: String(Math.min(positiveInt(x.params.top_n, 10), 100)) },
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    signal: x.signal,
    env: x.env,
    service: 'GitHub',
    secrets: token ? [token] : [],
    explain: (status, body, headers) => {
      const message = /"message"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? body.slice(0, 200);
      if (status === 429 || (status === 403 && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))))
        return new AppError('TOOL_UNAVAILABLE', `GitHub rate limit reached (HTTP ${status}): ${message}`, { status });
      const e = statusError('GitHub', status, body);
      return new AppError(e.code, `GitHub answered HTTP ${status}: ${message}`, e.details);
    },
  })) as { items?: Array<Record<string, unknown>>; message?: string } | null;
  if (!Array.isArray(res?.items)) throw new AppError('TOOL_UNAVAILABLE', `GitHub answered without items: ${res?.message ?? 'no message'}`);
  const items = res.items;
  const hits = items.map((r) => ({
    title: String(r.name ?? ''),
    url: String(r.html_url ?? ''),
    snippet: `${String(r.description)}\n stars:${String(r.watchers ?? r.stargazers_count ?? 0)}`,
  }));
  return { hits, json: items };
});
