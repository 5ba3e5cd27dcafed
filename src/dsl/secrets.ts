/**
 * Keeps secrets out of workflow history: a run's DSL travels to Temporal with credential params
 * (tool API keys, database passwords) replaced by a marker. Activities that need the real value
 * read it from the stored canvas version the run was started from.
 */

export const SECRET_MARKER = '__secret__';

const SECRET_KEY = /^(api_key|apikey|api_secret|secret|secret_key|password|passwd|token|access_token|auth_token|app_key|.+_api_key|.+_token|.+_secret)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function redact(value: unknown, underParams: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => redact(v, underParams));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (underParams && typeof v === 'string' && v !== '' && isSecretKey(k)) out[k] = SECRET_MARKER;
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
