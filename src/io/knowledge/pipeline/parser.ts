/**
 * Parser, as RAGFlow's `rag/flow/parser/parser.py` behaves for the file types this build reads:
 * the setup whose suffixes match the file name is used, and its `output_format` decides the
 * output (`json`: a list of `{text, doc_type_kwd}` items; `markdown`, `text`, `html`: one string).
 * - pdf: the text layer (unpdf), an item per line with its box (`_pdf_positions`); RAGFlow's
 *   DeepDOC also does layout analysis and OCR, MinerU/Docling/VLM methods call services: those
 *   parse methods fail clearly here.
 * - markdown / text&code / html: RAGFlow's sections (markdown elements; text merged to 128 tokens
 *   at sentence ends; HTML through its Markdown rendering).
 * - docx (mammoth): paragraphs and headings as text items, tables as `table` items (HTML).
 * - spreadsheet (xlsx, csv; exceljs): an HTML table per sheet, a "header: value; …" line per row
 *   (json), or Markdown tables.
 * - email (.eml): headers, bodies and attachments as RAGFlow collects them (./email.ts).
 * - image, audio, video: through the vision and speech-to-text models (./mediaParser.ts).
 * - slides (.pptx): the text of each slide, an item per slide (./slides.ts).
 * - doc, .ppt, .msg, epub: no reader here: a COMPONENT_UNSUPPORTED error names the file type.
 */
import mammoth from 'mammoth';
import { ALLOWED_OUTPUT_FORMATS, setupForFile, type ParserFileType, type ParserParams, type ParserSetup } from '../../../core/pipeline/components/Parser';
import { AppError } from '../../../errors';
import { readSheets, type Row } from '../../text/sheets';
import { htmlToMarkdown } from '../parse';
import type { PipelineOutputFormat, PipelinePayload, PipelineServices } from './contract';
import { emailText, parseEmail } from './email';
import { markdownElements } from './markdownElements';
import { textSections } from './merge';
import { imageItems, transcript } from './mediaParser';
import { PDF_POSITIONS_KEY } from './positions';
import { slideItems } from './slides';

type Item = Record<string, unknown> & { text: string };
type Parsed = { json: Item[] } | { markdown: string } | { text: string } | { html: string };

const decode = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '');
const textItems = (texts: string[]): Item[] => texts.filter((t) => t.trim()).map((text) => ({ text, doc_type_kwd: 'text' }));

function unsupported(type: string, why: string): AppError {
  return new AppError('COMPONENT_UNSUPPORTED', `The Parser cannot read ${type} files in this build: ${why}`, { fileType: type });
}

interface PdfTextItem {
  str: string;
  width: number;
  height: number;
  transform: number[];
  hasEOL: boolean;
}

/** The lines of one page with their boxes (top-left origin, points), as RAGFlow's boxes are measured. */
function pageLines(items: PdfTextItem[], pageNumber: number, pageHeight: number): Item[] {
  const lines: Item[] = [];
  let parts: PdfTextItem[] = [];
  const flush = () => {
    const text = parts
      .map((p) => p.str)
      .join('')
      .trim();
    if (text) {
      const x0 = Math.min(...parts.map((p) => p.transform[4]!));
      const x1 = Math.max(...parts.map((p) => p.transform[4]! + p.width));
      const top = Math.min(...parts.map((p) => pageHeight - p.transform[5]! - p.height));
      const bottom = Math.max(...parts.map((p) => pageHeight - p.transform[5]!));
      lines.push({ text, layout_type: 'text', doc_type_kwd: 'text', page_number: pageNumber, [PDF_POSITIONS_KEY]: [[pageNumber, x0, x1, top, bottom]] });
    }
    parts = [];
  };
  for (const item of items) {
    // A new baseline starts a new line even when the producer set no end-of-line mark.
    if (parts.length > 0 && Math.abs(parts[parts.length - 1]!.transform[5]! - item.transform[5]!) > Math.max(2, item.height / 2)) flush();
    parts.push(item);
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

async function pdfItems(bytes: Uint8Array, setup: ParserSetup): Promise<Item[]> {
  const method = String(setup.parse_method ?? 'deepdoc').toLowerCase();
  if (method !== 'deepdoc' && method !== 'plain_text' && method !== 'plain text')
    throw unsupported(
      'pdf',
      `the parse method "${setup.parse_method}" needs a service this build does not have; use "DeepDOC" or "Plain Text" (the PDF's text layer)`,
    );
  const { getDocumentProxy } = await import('unpdf');
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const items: Item[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const textItems = (content.items as unknown[]).filter((i): i is PdfTextItem => typeof (i as { str?: unknown }).str === 'string');
      items.push(...pageLines(textItems, n, page.getViewport({ scale: 1 }).height));
    }
    return items;
  } catch (err) {
    throw new AppError('BAD_REQUEST', `The PDF cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function markdownOf(html: string): string {
  return htmlToMarkdown(html);
}

/** HTML split at its tables: text around them as Markdown sections, each table whole. */
function htmlItems(html: string, flatten: boolean): Item[] {
  const items: Item[] = [];
  let rest = html;
  for (;;) {
    const m = /<table[\s>][\s\S]*?<\/table>/i.exec(rest);
    const before = m ? rest.slice(0, m.index) : rest;
    items.push(...textItems(markdownElements(markdownOf(before))));
    if (!m) break;
    items.push({ text: m[0], doc_type_kwd: flatten ? 'text' : 'table' });
    rest = rest.slice(m.index + m[0].length);
  }
  return items;
}

const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function columns(rows: Row[]): string[] {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return cols;
}

async function spreadsheet(bytes: Uint8Array, name: string, format: string): Promise<Parsed> {
  if (/\.xls$/i.test(name)) throw unsupported('spreadsheet', 'the old binary .xls format has no reader here; save it as .xlsx or .csv');
  const sheets = Object.entries(await readSheets(bytes, name));
  if (format === 'json') {
    const lines: string[] = [];
    for (const [sheet, rows] of sheets) {
      const cols = columns(rows);
      for (const r of rows) {
        const fields = cols.filter((c) => cell(r[c]) !== '').map((c) => `${c}：${cell(r[c])}`);
        if (fields.length > 0) lines.push(`${fields.join('; ')}${sheets.length > 1 || sheet !== 'Sheet1' ? ` ——${sheet}` : ''}`);
      }
    }
    return { json: textItems(lines) };
  }
  if (format === 'markdown') {
    const tables = sheets.map(([, rows]) => {
      const cols = columns(rows);
      const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
      return [line(cols), line(cols.map(() => '---')), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
    });
    return { markdown: tables.join('\n\n') };
  }
  const tables = sheets.map(([sheet, rows]) => {
    const cols = columns(rows);
    const head = `<tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
    const body = rows.map((r) => `<tr>${cols.map((c) => `<td>${esc(cell(r[c]))}</td>`).join('')}</tr>`).join('');
    return `<table><caption>${esc(sheet)}</caption>${head}${body}</table>`;
  });
  return { html: tables.join('\n') };
}

async function parseAs(
  type: ParserFileType,
  setup: ParserSetup,
  name: string,
  bytes: Uint8Array,
  services: PipelineServices,
  signal: AbortSignal,
): Promise<Parsed> {
  const format = setup.output_format;
  const flatten = setup.flatten_media_to_text === true;
  switch (type) {
    case 'pdf': {
      const items = await pdfItems(bytes, setup);
      return format === 'markdown' ? { markdown: items.map((i) => `${i.text}\n`).join('') } : { json: items };
    }
    case 'markdown': {
      const sections = markdownElements(decode(bytes));
      return format === 'json' ? { json: textItems(sections) } : { text: sections.join('\n') };
    }
    case 'text&code': {
      const sections = textSections(decode(bytes), 128, '\n!?;。；！？');
      return format === 'json' ? { json: textItems(sections) } : { text: sections.filter((s) => s.trim()).join('\n') };
    }
    case 'html': {
      const sections = markdownElements(markdownOf(decode(bytes)));
      return format === 'json' ? { json: textItems(sections) } : { text: sections.join('\n') };
    }
    case 'docx': {
      if (/\.doc$/i.test(name)) throw unsupported('doc', 'the old binary .doc format has no reader here; save it as .docx');
      let html: string;
      try {
        html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
      } catch (err) {
        throw new AppError('BAD_REQUEST', `${name} cannot be read as a Word document: ${err instanceof Error ? err.message : String(err)}`);
      }
      return format === 'markdown' ? { markdown: markdownOf(html) } : { json: htmlItems(html, flatten) };
    }
    case 'spreadsheet':
      return spreadsheet(bytes, name, format);
    case 'email': {
      const fields = Array.isArray(setup.fields)
        ? (setup.fields as string[])
        : ['from', 'to', 'cc', 'bcc', 'date', 'subject', 'body', 'attachments', 'metadata'];
      const content = parseEmail(name, bytes, fields);
      return format === 'json' ? { json: [{ ...content, text: String(content.text ?? ''), doc_type_kwd: 'text' }] } : { text: emailText(content) };
    }
    case 'image':
      return { json: await imageItems(setup, name, bytes, services, signal) };
    case 'audio':
    case 'video': {
      const text = await transcript(setup, name, bytes, services, signal);
      return format === 'json' ? { json: textItems([text]) } : { text };
    }
    case 'slides':
      return { json: slideItems(name, bytes) };
    case 'doc':
      throw unsupported('doc', 'the old binary .doc format needs Apache Tika; save it as .docx');
    default:
      throw unsupported(type, 'no parser for this file type is available here');
  }
}

/** Runs the Parser on the file named in `input`. */
export async function parseFile(p: ParserParams, input: PipelinePayload, services: PipelineServices, signal: AbortSignal): Promise<PipelinePayload> {
  const name = input.name || input.file?.name || '';
  const chosen = setupForFile(p, name);
  const ext = (name.split('.').pop() ?? '').toLowerCase();
  if (!chosen) throw new AppError('BAD_REQUEST', `No suitable for file extension: \`.${ext}\` (the Parser has no setup whose suffixes include it)`);
  if (!input.file) throw new AppError('BAD_REQUEST', 'The Parser received no file (the step before it must be File)');
  services.progress(0.02, `Start to work on a ${chosen.type} file.`);
  const bytes = await services.readFile(input.file.id);
  const allowed = ALLOWED_OUTPUT_FORMATS[chosen.type];
  if (allowed && !allowed.includes(chosen.setup.output_format))
    throw new AppError('COMPONENT_PARAMS', `${chosen.type} output format "${chosen.setup.output_format}" is not supported`);
  const parsed = await parseAs(chosen.type, chosen.setup, name, bytes, services, signal);
  const format = Object.keys(parsed)[0] as PipelineOutputFormat;
  const out: PipelinePayload = { ...input, output_format: format };
  delete out.json;
  delete out.markdown;
  delete out.text;
  delete out.html;
  return { ...out, ...parsed } as PipelinePayload;
}
