/**
 * The file-making components' I/O: DocGenerator writes a document, ExcelProcessor reads, merges,
 * reshapes and writes spreadsheets. Files are read from and written to the run's tenant's files
 * (src/io/files/blobStore.ts); what comes back are RAGFlow's outputs, with files as references.
 */
import { randomUUID } from 'node:crypto';
import { downloadPath, type DownloadInfo } from '../../core/components/files';
import { AppError } from '../../errors';
import type { FileStore } from '../store/fileTypes';
import { DOC_FORMATS, documentFilename, generateDocument, MIME_TYPES, type DocFormat } from './documents';
import { markdownTable, mergeRows, readSheets, toCsv, writeXlsx, type Row } from '../text/sheets';

export interface FileToolContext {
  files: FileStore;
  tenantId: string;
  runId: string;
  now?: Date;
}

const str = (v: unknown, def = ''): string => (typeof v === 'string' ? v : v === null || v === undefined ? def : String(v));

export async function docGenerator(ctx: FileToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const format = str(args.output_format, 'pdf') as DocFormat;
  if (!DOC_FORMATS.includes(format)) throw new AppError('BAD_REQUEST', `Unsupported output format: ${format}`);
  const now = ctx.now ?? new Date();
  let bytes: Uint8Array;
  try {
    bytes = await generateDocument({
      format,
      content: str(args.content),
      header: str(args.header_text),
      footer: str(args.footer_text),
      watermark: str(args.watermark_text),
      pageNumbers: args.add_page_numbers !== false,
      timestamp: args.add_timestamp !== false,
      fontSize: Number(args.font_size) || 12,
      now,
    });
  } catch (err) {
    throw new AppError('BAD_REQUEST', `Document generation failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (bytes.byteLength === 0) throw new AppError('BAD_REQUEST', 'Document generation failed: Document file is empty');
  const filename = documentFilename(str(args.filename), format, now, randomUUID().replace(/-/g, ''));
  const mimeType = MIME_TYPES[format];
  const meta = await ctx.files.put({ tenantId: ctx.tenantId, origin: 'output', runId: ctx.runId, name: filename, mimeType, content: bytes });
  const info: DownloadInfo = {
    doc_id: meta.id,
    filename,
    mime_type: mimeType,
    size: meta.size,
    download_url: downloadPath(meta.id),
    preview_url: `/api/v1/agents/attachments/${meta.id}/preview?ext=${format}&mime_type=${encodeURIComponent(mimeType)}`,
    include_download_info_in_content: args.include_download_info_in_content === true,
  };
  return { doc_id: meta.id, filename, mime_type: mimeType, size: meta.size, download: JSON.stringify(info) };
}

function summaryOf(key: string, rows: Row[]): string {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return `**${key}**: ${rows.length} rows, ${cols.length} columns (${cols.slice(0, 5).join(', ')}${cols.length > 5 ? '...' : ''})`;
}

async function sheetsOf(ctx: FileToolContext, ids: string[], selection: string): Promise<Array<{ name: string; sheets: Record<string, Row[]> }>> {
  const metas = await ctx.files.metas(ctx.tenantId, ids);
  const out = [];
  for (const id of ids) {
    const meta = metas.get(id);
    const bytes = meta ? await ctx.files.content(ctx.tenantId, id) : null;
    if (!meta || !bytes) continue;
    out.push({ name: meta.name, sheets: await readSheets(bytes, meta.name, selection) });
  }
  return out;
}

/** RAGFlow's data shapes for transform and output: `{sheet: rows}`, rows, or one record. */
function tablesOf(data: unknown): Record<string, Row[]> | null {
  let v = data;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (Array.isArray(v)) return { Sheet1: v.map((r) => (typeof r === 'object' && r !== null ? (r as Row) : { value: r })) };
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const values = Object.values(o);
    if (values.length > 0 && values.every(Array.isArray)) return o as Record<string, Row[]>;
    return { Sheet1: [o] };
  }
  return null;
}

export async function excelProcessor(ctx: FileToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const op = str(args.operation, 'read');
  const ids = Array.isArray(args.files) ? args.files.filter((x): x is string => typeof x === 'string') : [];
  const selection = str(args.sheet_selection, 'all') || 'all';
  if (op === 'read') {
    const data: Record<string, Row[]> = {};
    const summaries: string[] = [];
    const md: string[] = [];
    for (const f of await sheetsOf(ctx, ids, selection)) {
      const entries = Object.entries(f.sheets);
      for (const [sheet, rows] of entries) {
        const key = entries.length > 1 ? `${f.name}_${sheet}` : f.name;
        data[key] = rows;
        summaries.push(summaryOf(key, rows));
        md.push(`### ${key}\n\n${markdownTable(rows.slice(0, 10))}\n`);
      }
    }
    return { data, summary: summaries.length > 0 ? summaries.join('\n') : 'No Excel files found', markdown: md.length > 0 ? md.join('\n\n') : 'No data' };
  }
  if (op === 'merge') {
    const tables = (await sheetsOf(ctx, ids, selection)).flatMap((f) => Object.values(f.sheets));
    if (tables.length === 0) return { data: {}, summary: 'No data to merge', markdown: '' };
    const merged = mergeRows(tables, str(args.merge_strategy, 'concat'), str(args.join_on));
    const cols = new Set(merged.flatMap((r) => Object.keys(r)));
    return {
      data: { merged },
      summary: `Merged ${tables.length} sources into ${merged.length} rows, ${cols.size} columns`,
      markdown: markdownTable(merged.slice(0, 20)),
    };
  }
  if (op === 'transform') {
    if (!args.has_transform_data) return { summary: 'No transform data reference provided' };
    if (args.data === null || args.data === undefined) return { summary: 'Transform data is empty' };
    const tables = tablesOf(args.data);
    if (!tables) return { data: { raw: str(args.data) }, markdown: str(args.data), summary: 'Transformed data ready for processing' };
    const keys = Object.keys(tables);
    const multi = typeof args.data === 'object' && !Array.isArray(args.data) && keys[0] !== 'Sheet1';
    return {
      data: multi ? tables : tables.Sheet1,
      markdown: multi ? keys.map((k) => `### ${k}\n\n${markdownTable(tables[k]!)}`).join('\n\n') : markdownTable(tables.Sheet1!),
      summary: 'Transformed data ready for processing',
    };
  }
  if (op === 'output') {
    if (!args.has_transform_data) return { summary: 'No data reference for output' };
    if (args.data === null || args.data === undefined) return { summary: 'No data to output' };
    const tables = tablesOf(args.data);
    if (!tables) return { summary: 'Invalid data format for Excel output' };
    const csv = str(args.output_format) === 'csv';
    const filename = `${str(args.output_filename, 'output') || 'output'}.${csv ? 'csv' : 'xlsx'}`;
    const bytes = csv ? new TextEncoder().encode(toCsv(Object.values(tables)[0] ?? [])) : await writeXlsx(tables);
    const mimeType = csv ? 'text/csv' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    const meta = await ctx.files.put({ tenantId: ctx.tenantId, origin: 'output', runId: ctx.runId, name: filename, mimeType, content: bytes });
    const total = Object.values(tables).reduce((n, rows) => n + rows.length, 0);
    return {
      attachment: { doc_id: meta.id, format: csv ? 'csv' : 'xlsx', file_name: filename, download_url: downloadPath(meta.id) },
      summary: `Generated ${filename} with ${Object.keys(tables).length} sheet(s), ${total} total rows`,
      data: tables,
    };
  }
  return { summary: `Unknown operation: ${op}` };
}
