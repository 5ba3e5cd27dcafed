/**
 * RAGFlow's document metadata logic (api/db/services/doc_metadata_service.py): the summary of a
 * dataset's metadata, the flattened view and the batch changes, on plain records.
 */
/** RAGFlow's metadata value types for the summary. */
function metaType(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v)) return 'time';
  return 'string';
}

const pyString = (v: unknown) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));

/** DocMetadataService.get_metadata_summary: per key, its dominant type and value counts (most frequent first). */
export function metadataSummary(metas: ReadonlyArray<Record<string, unknown>>): Record<string, { type: string; values: Array<[string, number]> }> {
  const counts = new Map<string, Map<string, number>>();
  const types = new Map<string, Map<string, number>>();
  for (const meta of metas) {
    for (const [k, v] of Object.entries(meta)) {
      const t = metaType(v);
      if (t) {
        const m = types.get(k) ?? new Map<string, number>();
        m.set(t, (m.get(t) ?? 0) + 1);
        types.set(k, m);
      }
      for (const x of Array.isArray(v) ? v : [v]) {
        if (x === null || x === undefined) continue;
        const m = counts.get(k) ?? new Map<string, number>();
        const s = pyString(x);
        m.set(s, (m.get(s) ?? 0) + 1);
        counts.set(k, m);
      }
    }
  }
  const out: Record<string, { type: string; values: Array<[string, number]> }> = {};
  for (const [k, m] of counts) {
    const values = [...m.entries()].sort((a, b) => b[1] - a[1]);
    let type = 'string';
    let best = 0;
    for (const [t, n] of types.get(k) ?? []) if (n > best) [type, best] = [t, n];
    out[k] = { type, values };
  }
  return out;
}

/** DocMetadataService.get_flatted_meta_by_kbs: `{key: {value: [doc ids]}}`, list values expanded. */
export function flattenMetas(rows: ReadonlyArray<{ id: string; meta_fields: Record<string, unknown> }>): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const { id, meta_fields } of rows) {
    for (const [k, v] of Object.entries(meta_fields ?? {})) {
      for (const x of Array.isArray(v) ? v : [v]) {
        if (x === null || x === undefined) continue;
        const byValue = (out[k] ??= {});
        (byValue[pyString(x)] ??= []).push(id);
      }
    }
  }
  return out;
}

const dedupe = (xs: unknown[]) => {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const key = JSON.stringify(x);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** DocMetadataService.batch_update_metadata's per-document step; true when the metadata changed. */
export function applyMetadataChanges(
  meta: Record<string, unknown>,
  updates: ReadonlyArray<Record<string, unknown>>,
  deletes: ReadonlyArray<Record<string, unknown>>,
): boolean {
  let changed = false;
  const same = (a: unknown, b: unknown) => pyString(a) === pyString(b);
  for (const u of updates) {
    const key = u.key as string;
    if (!key) continue;
    const value = u.value;
    const match = u.match;
    const hasMatch = match !== undefined && match !== null && match !== '';
    if (!(key in meta)) {
      if (hasMatch) continue;
      meta[key] = Array.isArray(value) ? dedupe(value) : value;
      changed = true;
    } else if (Array.isArray(meta[key])) {
      const list = meta[key] as unknown[];
      if (!hasMatch) {
        meta[key] = dedupe([...list, ...(Array.isArray(value) ? value : [value])]);
        changed = true;
      } else if (list.some((x) => same(x, match))) {
        meta[key] = dedupe(list.map((x) => (same(x, match) ? value : x)));
        changed = true;
      }
    } else if (!hasMatch || same(meta[key], match)) {
      meta[key] = value;
      changed = true;
    }
  }
  for (const d of deletes) {
    const key = d.key as string;
    if (!key || !(key in meta)) continue;
    const value = d.value;
    if (Array.isArray(meta[key]) && value !== undefined && value !== null) {
      const list = meta[key] as unknown[];
      const kept = list.filter((x) => !same(x, value));
      if (kept.length !== list.length) {
        if (kept.length) meta[key] = kept;
        else delete meta[key];
        changed = true;
      }
    } else if (Array.isArray(meta[key]) || value === undefined || value === null || same(meta[key], value)) {
      delete meta[key];
      changed = true;
    }
  }
  return changed;
}
