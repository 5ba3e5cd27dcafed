/**
 * ExeSQL results as RAGFlow shows them: each statement's rows as a Markdown table the way pandas'
 * `to_markdown(index=False, floatfmt=".6f")` prints it (tabulate's "pipe" format: numeric
 * columns right-aligned, text left-aligned, headers padded by two), and as JSON records.
 */

/** One statement's outcome: rows, or a message (no rows, a command's effect, an error). */
export type StatementResult = { columns: string[]; rows: unknown[][]; floatColumns?: boolean[] } | { message: string };

export const NO_RECORD = 'No record in the database!';

/** Values as JSON can hold them: bytes as `\x…` hex, NaN/Infinity as null, big integers as text. */
export function jsonValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (Array.isArray(v)) return v.map(jsonValue);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return v;
}

type ColumnType = 'none' | 'int' | 'float' | 'bool' | 'text';

const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

function cellType(v: unknown): ColumnType {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  // tabulate parses numeric-looking text as numbers too.
  if (typeof v === 'string' && NUMERIC.test(v)) return /^\s*[+-]?\d+\s*$/.test(v) ? 'int' : 'float';
  return 'text';
}

/** tabulate's rule: a column takes the most general type of its cells (None < bool < int < float < text). */
function columnType(values: unknown[]): ColumnType {
  const order: ColumnType[] = ['none', 'bool', 'int', 'float', 'text'];
  return values.reduce<ColumnType>((t, v) => (order.indexOf(cellType(v)) > order.indexOf(t) ? cellType(v) : t), 'none');
}

function cellText(v: unknown, type: ColumnType): string {
  if (v === null || v === undefined) return '';
  if (type === 'float' && cellType(v) !== 'text') return Number(v).toFixed(6);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return v.replace(/\r?\n/g, ' ');
  const j = jsonValue(v);
  return typeof j === 'string' ? j : JSON.stringify(j);
}

/**
 * tabulate's pipe table for the rows. `floatColumns` marks columns the database typed as
 * decimal/floating point: RAGFlow's drivers hand those over as Decimal/float, so even integral
 * values print with six decimals.
 */
export function markdownTable(columns: string[], rows: unknown[][], floatColumns: boolean[] = []): string {
  const types = columns.map((_, c) => {
    const t = columnType(rows.map((r) => r[c]));
    return floatColumns[c] && t === 'int' ? 'float' : t;
  });
  const cells = rows.map((r) => columns.map((_, c) => cellText(r[c], types[c]!)));
  const right = types.map((t) => t === 'int' || t === 'float');
  const widths = columns.map((h, c) => Math.max(h.length + 2, ...cells.map((r) => r[c]!.length)));
  const pad = (s: string, c: number) => (right[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!));
  const line = (vals: string[]) => `| ${vals.map(pad).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (right[c] ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(columns), rule, ...cells.map(line)].join('\n');
}

/** The node's outputs: `json` (records per statement, or `{content}`) and `formalized_content`. */
export function formatResults(results: StatementResult[]): { json: unknown[]; formalized_content: string } {
  const json: unknown[] = [];
  const tables: string[] = [];
  for (const r of results) {
    if ('message' in r) {
      json.push({ content: r.message });
      tables.push(r.message);
      continue;
    }
    if (r.rows.length === 0) {
      json.push({ content: NO_RECORD });
      tables.push(NO_RECORD);
      continue;
    }
    json.push(r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, jsonValue(row[i])]))));
    tables.push(markdownTable(r.columns, r.rows, r.floatColumns));
  }
  return { json, formalized_content: tables.join('\n\n') };
}
