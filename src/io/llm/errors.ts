/**
 * Maps model-call failures onto the error registry: what retrying can fix (5xx, 429, network)
 * and what it cannot (a malformed request, refused credentials). A provider's `Retry-After` goes
 * along (details.retryAfterMs), so the retry waits as long as the provider asked.
 */
import OpenAI from 'openai';
import { AppError } from '../../errors';

export function classifyLlmError(err: unknown, provider: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof OpenAI.APIConnectionError) {
    return new AppError('LLM_UNAVAILABLE', `Could not reach the model provider ${provider}: ${err.message}`, { provider });
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const detail = `${provider} answered HTTP ${status}: ${err.message}`;
    if (status === 401 || status === 403) return new AppError('LLM_AUTH', detail, { provider, status });
    if (status === 400 || status === 404 || status === 413 || status === 422) return new AppError('LLM_BAD_REQUEST', detail, { provider, status });
    const retryAfterMs = retryAfterOf(err.headers);
    return new AppError('LLM_UNAVAILABLE', detail, { provider, status, ...(retryAfterMs !== null ? { retryAfterMs } : {}) });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AppError('LLM_UNAVAILABLE', `The call to ${provider} failed: ${message}`, { provider });
}

/** Retries wait at most this long for a provider's Retry-After (a longer one is taken as this). */
const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

/** A 429's or 503's `Retry-After` (seconds or an HTTP date) in ms, or null when it has none. */
export function retryAfterOf(headers: unknown, now = Date.now()): number | null {
  const raw = headers instanceof Headers ? headers.get('retry-after') : null;
  if (!raw) return null;
  const seconds = Number(raw);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(raw) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null;
}
