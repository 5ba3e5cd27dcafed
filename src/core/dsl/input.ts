/**
 * Accepts a canvas as users send it: RAGFlow's export form (`{id, title, description,
 * canvas_type, dsl, avatar}`) or the bare DSL, and returns the normalized bare DSL with the
 * export's metadata and the path prefix validation messages should use.
 */
import type { PathSegment } from './jsonPath';
import { normalizeDsl } from './normalize';
import { isExportForm } from './schema';

export interface CanvasInput {
  /** The normalized bare DSL (not validated yet). */
  dsl: unknown;
  /** Metadata of the export form, when given that way. */
  meta: { title?: string; description?: string; canvas_type?: string; avatar?: string };
  /** Where the DSL sits in the submitted document, for error paths. */
  base: PathSegment[];
}

/**
 * Text that RAGFlow templates give per language (`{"en": ..., "zh": ...}`): English, else the
 * first language; plain strings pass through.
 */
export function localizedText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const byLang = v as Record<string, unknown>;
  const en = byLang.en;
  if (typeof en === 'string') return en;
  return Object.values(byLang).find((x): x is string => typeof x === 'string');
}

function optString(v: unknown): string | undefined {
  return localizedText(v);
}

export function readCanvasInput(value: unknown, base: PathSegment[] = []): CanvasInput {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { dsl: value, meta: {}, base };
    }
  }
  if (isExportForm(value)) {
    const v = value as Record<string, unknown>;
    return {
      dsl: normalizeDsl(v.dsl),
      meta: { title: optString(v.title), description: optString(v.description), canvas_type: optString(v.canvas_type), avatar: optString(v.avatar) },
      base: [...base, 'dsl'],
    };
  }
  return { dsl: normalizeDsl(value), meta: {}, base };
}
