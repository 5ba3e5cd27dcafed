/**
 * SerpApi (`GET {SERPAPI_BASE_URL}/search.json`, key in the `api_key` query parameter), which
 * RAGFlow's Google tool uses: Google web results (`engine=google`) and, for GoogleScholar,
 * Google Scholar results (`engine=google_scholar`). SerpApi reports problems as `{error}`, with
 * HTTP 401 for a bad key and 429 when the account is out of searches or throttled.
 */
import { AppError } from '../../errors';
import type { ToolExecution } from './executor';
import { requireCredential, serviceBase } from './search';
import { fetchJson, statusError } from './webHttp';

/** SerpApi's answer when a search simply found nothing: not a failure. */
const NOTHING_FOUND = /hasn't returned any results/i;

export async function serpApi(x: ToolExecution, service: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const key = requireCredential(x, service, 'api_key', ['SERPAPI_API_KEY']);
  const base = serviceBase(x.env, ['SERPAPI_BASE_URL'], 'https://serpapi.com');
  const res = (await fetchJson(`${base}/search.json`, {
    params: { ...params, api_key: key },
    signal: x.signal,
    env: x.env,
    service,
    secrets: [key],
    explain: (status, body) => {
      const e = statusError(service, status, body);
      const detail = /"error"\s*:\s*"([^"]+)"/.exec(body)?.[1];
      return detail ? new AppError(e.code, `${service} (SerpApi) answered HTTP ${status}: ${detail}`, e.details) : e;
    },
  })) as Record<string, unknown> | null;
  const error = typeof res?.error === 'string' ? res.error : '';
  if (error && !NOTHING_FOUND.test(error)) throw new AppError('TOOL_BAD_REQUEST', `${service} (SerpApi): ${error}`);
  return res ?? {};
}
