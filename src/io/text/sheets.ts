/**
 * Spreadsheets for ExcelProcessor with exceljs: an xlsx (or a CSV) read into rows per sheet
 * (the first row is the header, as pandas reads it), rows written back as xlsx or CSV, and rows
 * as a Markdown table (what the node shows, as pandas' `to_markdown`).
 */
import ExcelJS from 'exceljs';
import { AppError } from '../../errors';

export type Row = Record<string, unknown>;

function cellValue(v: ExcelJS.CellValue): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    if ('result' in v) return cellValue((v as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
    if ('richText' in v) return (v as ExcelJS.CellRichTextValue).richText.map((r) => r.text).join('');
    if ('text' in v) return (v as ExcelJS.CellHyperlinkValue).text;
    if ('error' in v) return null;
  }
  return v;
}

function sheetRows(ws: ExcelJS.Worksheet): Row[] {
  const header: string[] = [];
  const rows: Row[] = [];
  let headed = false;
  ws.eachRow({ includeEmpty: false }, (row) => {
    const values = (row.values as ExcelJS.CellValue[]).slice(1);
    if (!headed) {
      headed = true;
      values.forEach((v, i) => (header[i] = String(cellValue(v) ?? `Unnamed: ${i}`)));
      return;
    }
    const r: Row = {};
    header.forEach((h, i) => (r[h] = cellValue(values[i] ?? null)));
    rows.push(r);
  });
  return rows;
}

/** RFC 4180 CSV, first line the header. */
export function parseCsv(text: string): Row[] {
  const records: string[][] = [];
  let field = '';
  let rec: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      rec.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      rec.push(field);
      records.push(rec);
      rec = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || rec.length > 0) {
    rec.push(field);
    records.push(rec);
  }
  const [head, ...body] = records.filter((r) => r.some((f) => f !== ''));
  if (!head) return [];
  const num = (s: string): unknown => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s === '' ? null : s);
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, num(r[i] ?? '')])));
}

/**
 * The sheets of a workbook as rows: `selection` is RAGFlow's `sheet_selection` (`all`, `first`, or
 * comma-separated names; unknown names are skipped). A CSV is one sheet, `Sheet1`.
 */
export async function readSheets(bytes: Uint8Array, name: string, selection = 'all'): Promise<Record<string, Row[]>> {
  if (name.toLowerCase().endsWith('.csv')) return { Sheet1: parseCsv(new TextDecoder().decode(bytes).replace(/^\uFEFF/, '')) };
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch (err) {
    throw new AppError('BAD_REQUEST', `${name} cannot be read as a spreadsheet: ${err instanceof Error ? err.message : String(err)}`);
  }
  const names = wb.worksheets.map((w) => w.name);
  const wanted =
    selection === 'all'
      ? names
      : selection === 'first'
        ? names.slice(0, 1)
        : selection
            .split(',')
            .map((s) => s.trim())
            .filter((s) => names.includes(s));
  const out: Record<string, Row[]> = {};
  for (const n of wanted) out[n] = sheetRows(wb.getWorksheet(n)!);
  return out;
}

function columnsOf(rows: Row[]): string[] {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return cols;
}

function plain(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** Sheets of rows as an xlsx workbook (sheet names cut to 31 characters, `/` and `\` replaced, as RAGFlow does). */
export async function writeXlsx(sheets: Record<string, Row[]>): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(name.slice(0, 31).replace(/[/\\]/g, '_') || 'Sheet1');
    const cols = columnsOf(rows);
    ws.addRow(cols);
    for (const r of rows) ws.addRow(cols.map((c) => plain(r[c])));
  }
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

export function toCsv(rows: Row[]): string {
  const cols = columnsOf(rows);
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : String(plain(v));
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.map(cell).join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
}

/** Rows as a Markdown table (pandas' `to_markdown(index=False)` layout, pipes escaped). */
export function markdownTable(rows: Row[]): string {
  const cols = columnsOf(rows);
  if (cols.length === 0) return '';
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : String(plain(v))).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `| ${cols.map(cell).join(' | ')} |`,
    `|${cols.map(() => ':---').join('|')}|`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}

/** RAGFlow's concat (rows one after another, columns united) and outer join on a column. */
export function mergeRows(tables: Row[][], strategy: string, joinOn: string): Row[] {
  if (strategy !== 'join' || !joinOn) return tables.flat().map((r) => ({ ...r }));
  let merged = tables[0]!.map((r) => ({ ...r }));
  for (const next of tables.slice(1)) {
    const out: Row[] = [];
    const used = new Set<number>();
    for (const left of merged) {
      const matches = next.map((r, i) => [r, i] as const).filter(([r]) => r[joinOn] === left[joinOn]);
      if (matches.length === 0) out.push({ ...left });
      for (const [r, i] of matches) {
        used.add(i);
        out.push({ ...left, ...r });
      }
    }
    next.forEach((r, i) => {
      if (!used.has(i)) out.push({ ...r });
    });
    merged = out;
  }
  return merged;
}
