/**
 * Floats as Python writes them. RAGFlow's pydantic models declare some parser_config fields
 * `float` (RAPTOR's clustering threshold and ratio, GraphRAG's retry backoffs,
 * `filename_embd_weight`), so it answers `2.0` and `60.0` where JSON.stringify writes `2` and
 * `60`; the Python SDK then hands its users a float. A view marks those values with
 * {@link pyFloat}; {@link renderPyFloats} (an onSend hook) writes them with their decimal point.
 */
import type { FastifyInstance } from 'fastify';

/** Inside a JSON string this is `\u0000pyfloat\u0000`: text the store never holds (it refuses NUL). */
const MARK = '\u0000pyfloat\u0000';
const MARKED = /"\\u0000pyfloat\\u0000(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"/g;

/** A number serialized as a Python float. */
class PyFloatValue {
  constructor(readonly n: number) {}
  toJSON(): string {
    return `${MARK}${this.n}`;
  }
}

/** Marks a finite number to be written as a float (anything else is left as it is). */
export function pyFloat(v: unknown): unknown {
  return typeof v === 'number' && Number.isFinite(v) ? new PyFloatValue(v) : v;
}

/** parser_config's float fields, by the block they sit in ('' = top level). */
const PARSER_CONFIG_FLOATS: Record<string, string[]> = {
  '': ['filename_embd_weight'],
  raptor: ['clustering_threshold', 'clustering_ratio'],
  graphrag: ['retry_backoff_seconds', 'retry_backoff_max_seconds'],
};

/** A parser_config with its float fields marked (a copy; the stored one is untouched). */
export function parserConfigFloats(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return config;
  const out: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const [block, fields] of Object.entries(PARSER_CONFIG_FLOATS)) {
    const holder = block === '' ? out : out[block];
    if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) continue;
    const target: Record<string, unknown> = block === '' ? out : (out[block] = { ...(holder as Record<string, unknown>) });
    for (const f of fields) if (f in target) target[f] = pyFloat(target[f]);
  }
  return out;
}

/** Writes marked floats as Python does: `2.0`, `0.3`. */
export function renderPyFloats(json: string): string {
  if (!json.includes('\\u0000pyfloat')) return json;
  return json.replace(MARKED, (_, n: string) => (/[.e]/.test(n) ? n : `${n}.0`));
}

/** Renders marked floats in every JSON answer of the routes of `app`'s scope. */
export function answerPyFloats(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, _reply, payload) => (typeof payload === 'string' ? renderPyFloats(payload) : payload));
}
