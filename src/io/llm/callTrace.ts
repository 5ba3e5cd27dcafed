/**
 * What the model call panel (issue 36) keeps of a call: the messages as they were sent, long
 * contents folded, stored files and blobs left as their markers (by reference), and secrets
 * redacted — the worker's configured keys wherever they appear, `Authorization`/`Bearer`
 * credentials, `sk-…` keys, and secret-named JSON fields and query parameters (the names
 * src/core/dsl/secrets.ts redacts in a DSL). The API key sent to the provider is a header,
 * never part of the request kept here.
 */
import type { ChatMessage, LlmChatRequest, LlmChatResult } from '../../core/components/callContracts';
import { isSecretKey, SECRET_MARKER } from '../../core/dsl/secrets';
import type { TracedMessage, TracedRequest, TracedResponse } from '../store/callTraceTypes';

/** Characters of a message kept whole; beyond it, the start is kept and the size noted. */
export const FOLD_CHARS = 8_000;

const SECRET_NAMES = String.raw`api[_-]?key|apikey|api_secret|secret(?:_key)?|password|passwd|(?:access_|auth_)?token|auth_key|app_key|[a-z0-9]+_(?:api_?key|token|secret)`;
const PATTERNS: Array<[RegExp, string]> = [
  // Header lines and header-shaped JSON: "Authorization: Basic abc", {"Authorization": "Bearer x"}.
  [/((?:proxy-)?authorization"?\s*[:=]\s*"?)(?:(?:bearer|basic|token)\s+)?[^\s",}]+/gi, `$1${SECRET_MARKER}`],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${SECRET_MARKER}`],
  [/\bsk-[A-Za-z0-9_-]{12,}/g, SECRET_MARKER],
  // "api_key": "…" in JSON, api_key=… in a query string or a config line.
  [new RegExp(String.raw`("(?:${SECRET_NAMES})"\s*:\s*")[^"]+(")`, 'gi'), `$1${SECRET_MARKER}$2`],
  [new RegExp(String.raw`\b((?:${SECRET_NAMES})\s*=\s*)[^\s&"']+`, 'gi'), `$1${SECRET_MARKER}`],
];

/** A redactor of text: the `known` secret values first (longest first), then the patterns. */
export function textRedactor(known: readonly string[]): (text: string) => string {
  const values = [...new Set(known.filter((v) => v.length >= 8))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(SECRET_MARKER);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
}

/** The values of secret-named settings (…_API_KEY, …_TOKEN, PASSWORD…) in environments: what must never be shown. */
export function configuredSecrets(...envs: Array<Record<string, string | undefined> | undefined>): string[] {
  const out: string[] = [];
  for (const env of envs) for (const [k, v] of Object.entries(env ?? {})) if (v && (isSecretKey(k) || /(KEY|TOKEN|SECRET|PASSWORD)$/i.test(k))) out.push(v);
  return out;
}

function fold(text: string, redact: (t: string) => string): { content: string; folded_chars?: number } {
  const clean = redact(text);
  return clean.length > FOLD_CHARS ? { content: clean.slice(0, FOLD_CHARS), folded_chars: clean.length } : { content: clean };
}

function tracedMessage(m: ChatMessage, redact: (t: string) => string): TracedMessage {
  return {
    role: m.role,
    ...fold(m.content ?? '', redact),
    ...(m.tool_calls?.length
      ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: fold(c.function.arguments, redact).content })) }
      : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  };
}

export function tracedRequest(request: LlmChatRequest, redact: (t: string) => string): TracedRequest {
  return {
    messages: request.messages.map((m) => tracedMessage(m, redact)),
    params: { ...request.gen, ...(request.json ? { json: true } : {}), ...(request.stream ? { streams_into_message: true } : {}) },
    tools: (request.tools ?? []).map((t) => t.function.name),
  };
}

export function tracedResponse(result: LlmChatResult, redact: (t: string) => string): TracedResponse {
  return {
    ...fold(result.content, redact),
    reasoning_chars: result.reasoning.length,
    finish_reason: result.finishReason,
    tool_calls: result.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: fold(c.arguments, redact).content })),
  };
}

/**
 * What an embedding or rerank request sent, in the messages' shape the panel reads: the query
 * (role `query`) and, for a rerank, each document (role `document`), folded and redacted like
 * messages; the number of documents in `params`.
 */
export function tracedServiceRequest(sent: { query: string; documents?: string[] }, redact: (t: string) => string): TracedRequest {
  const documents = sent.documents ?? [];
  return {
    messages: [{ role: 'query', ...fold(sent.query, redact) }, ...documents.map((d) => ({ role: 'document', ...fold(d, redact) }))],
    params: sent.documents ? { documents: documents.length } : {},
    tools: [],
  };
}

/** An embedding or rerank answer, as its few words (`1 vector of 1536 dimensions`). */
export function tracedServiceResponse(summary: string): TracedResponse {
  return { content: summary, reasoning_chars: 0, finish_reason: null, tool_calls: [] };
}
