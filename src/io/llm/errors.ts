/**
 * Maps model-call failures onto the error registry: what retrying can fix (5xx, 429, network)
 * and what it cannot (a malformed request, refused credentials).
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
    return new AppError('LLM_UNAVAILABLE', detail, { provider, status });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AppError('LLM_UNAVAILABLE', `The call to ${provider} failed: ${message}`, { provider });
}
