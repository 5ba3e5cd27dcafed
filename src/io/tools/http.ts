/** JSON over HTTP for tool clients, with failures mapped onto the error registry. */
import { AppError } from '../../errors';

export async function postJson(
  url: string,
  body: unknown,
  opts: { headers?: Record<string, string>; signal: AbortSignal; service: string; timeoutMs?: number },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 60_000);
  const signal = AbortSignal.any([opts.signal, timeout]);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...opts.headers }, body: JSON.stringify(body), signal });
  } catch (err) {
    if (opts.signal.aborted) throw err;
    throw new AppError('TOOL_UNAVAILABLE', `Could not reach ${opts.service}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  if (!res.ok) {
    const detail = `${opts.service} answered HTTP ${res.status}: ${text.slice(0, 300)}`;
    if (res.status === 401 || res.status === 403) throw new AppError('TOOL_AUTH', detail, { status: res.status });
    if (res.status === 400 || res.status === 404 || res.status === 422) throw new AppError('TOOL_BAD_REQUEST', detail, { status: res.status });
    throw new AppError('TOOL_UNAVAILABLE', detail, { status: res.status });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('TOOL_UNAVAILABLE', `${opts.service} answered something that is not JSON: ${text.slice(0, 200)}`);
  }
}
