/**
 * Keeps secrets out of workflow history: a run's DSL travels to Temporal with credential params
 * (tool API keys, database passwords) replaced by a marker. Activities that need the real value
 * read it from the stored canvas version the run was started from.
 */

export const SECRET_MARKER = '__secret__';

const SECRET_KEY =
  /^(api_key|apikey|api_secret|secret|secret_key|password|passwd|token|access_token|auth_token|auth_key|app_key|.+_api_key|.+_apikey|.+_token|.+_secret)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** HTTP headers that carry credentials (an Invoke node's `headers`). */
const SECRET_HEADER = /authorization|cookie|api[-_]?key|token|secret|password|signature/i;

function redactHeaders(headers: unknown): unknown {
  if (typeof headers === 'string') {
    // Invoke's headers are often JSON text.
    try {
      const parsed = JSON.parse(headers) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? JSON.stringify(redactHeaders(parsed)) : headers;
    } catch {
      return headers;
    }
  }
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return headers;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADER.test(k) && typeof v === 'string' && v !== '' ? SECRET_MARKER : v]));
}

function redact(value: unknown, underParams: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => redact(v, underParams));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (underParams && typeof v === 'string' && v !== '' && isSecretKey(k)) out[k] = SECRET_MARKER;
    else if (underParams && k === 'headers') out[k] = redactHeaders(v);
    else out[k] = redact(v, underParams || k === 'params');
  }
  return out;
}

/** A copy of the DSL with every non-empty secret-looking component param replaced by the marker. */
export function redactSecrets<T>(dsl: T): T {
  return redact(dsl, false) as T;
}

/**
 * What a run needs of a DSL: the editor's layout (`graph`) shrinks to the node names events show,
 * so large editor data (positions, embedded images) stays out of workflow history.
 */
export function slimForRun(dsl: Record<string, unknown>): Record<string, unknown> {
  const graph = dsl.graph as { nodes?: Array<{ id?: unknown; data?: { name?: unknown } }> } | undefined;
  const nodes = (graph?.nodes ?? [])
    .filter((n) => typeof n?.id === 'string' && typeof n.data?.name === 'string')
    .map((n) => ({ id: n.id, data: { name: n.data!.name } }));
  const { graph: _graph, messages: _messages, ...rest } = dsl;
  return nodes.length > 0 ? { ...rest, graph: { nodes } } : rest;
}
