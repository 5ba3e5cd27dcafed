/**
 * PDF coordinates on parsed items and chunks, as RAGFlow's `pdf_chunk_metadata` keeps them: items
 * carry `_pdf_positions` (`[[page, left, right, top, bottom], …]`) while chunking, and a finished
 * chunk carries them as the indexed fields `position_int`, `page_num_int` and `top_int`.
 */
export const PDF_POSITIONS_KEY = '_pdf_positions';

export type Position = [number, number, number, number, number];

function asPosition(p: unknown): Position | null {
  if (!Array.isArray(p) || p.length < 5) return null;
  const page = Array.isArray(p[0]) ? (p[0] as unknown[])[(p[0] as unknown[]).length - 1] : p[0];
  const nums = [page, p[1], p[2], p[3], p[4]].map(Number);
  if (nums.some((n) => !Number.isFinite(n))) return null;
  if (nums[0]! <= 0) nums[0] = nums[0]! + 1;
  return [Math.trunc(nums[0]!), nums[1]!, nums[2]!, nums[3]!, nums[4]!];
}

/** The positions an item carries, in whichever of RAGFlow's shapes. */
export function positionsOf(item: Record<string, unknown>): Position[] {
  const raw = item[PDF_POSITIONS_KEY] ?? item.positions ?? item.position_int;
  if (Array.isArray(raw)) return raw.map(asPosition).filter((p): p is Position => p !== null);
  if (typeof item.page_number === 'number' && ['x0', 'x1', 'top', 'bottom'].every((k) => typeof item[k] === 'number')) {
    const p = asPosition([item.page_number, item.x0, item.x1, item.top, item.bottom]);
    return p ? [p] : [];
  }
  return [];
}

/** The union of several items' positions, deduplicated and in reading order. */
export function mergePositions(items: ReadonlyArray<Record<string, unknown>>): Position[] {
  const seen = new Set<string>();
  const out: Position[] = [];
  for (const item of items)
    for (const p of positionsOf(item)) {
      const key = p.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(p);
    }
  return out.sort((a, b) => a[0] - b[0] || a[3] - b[3] || a[1] - b[1]);
}

/** A finished chunk: positions as `position_int` / `page_num_int` / `top_int`, the working key removed. */
export function finalizePositions<T extends Record<string, unknown>>(chunk: T): T {
  const positions = positionsOf(chunk);
  const out: Record<string, unknown> = { ...chunk };
  delete out[PDF_POSITIONS_KEY];
  delete out.positions;
  if (positions.length > 0) {
    out.position_int = positions.map((p) => [p[0], Math.trunc(p[1]), Math.trunc(p[2]), Math.trunc(p[3]), Math.trunc(p[4])]);
    out.page_num_int = positions.map((p) => p[0]);
    out.top_int = positions.map((p) => Math.trunc(p[3]));
  }
  return out as T;
}
