/**
 * What a model reads of an uploaded file, as RAGFlow's `FileService.parse` gives it: a document's
 * text (with the knowledge side's parsers: txt, md, html, pdf), a spreadsheet as Markdown tables,
 * nothing for an image (it goes to the model as an `image_url` part).
 */
import { documentSections, documentTypeOf } from '../knowledge/parse';
import { markdownTable, readSheets } from '../text/sheets';

const MIME_BY_EXT: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  csv: 'text/csv',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i >= 0 ? name.slice(i + 1).toLowerCase() : '';
}

/** The MIME type of a file: the client's when specific, else by extension. */
export function mimeTypeOf(name: string, given?: string | null): string {
  if (given && given !== 'application/octet-stream') return given;
  return MIME_BY_EXT[extensionOf(name)] ?? 'application/octet-stream';
}

export function isImage(mimeType: string): boolean {
  return mimeType.includes('image');
}

/** The text of a file, or null when it has none a model could read (images, unknown binaries). */
export async function fileText(name: string, mimeType: string, bytes: Uint8Array): Promise<string | null> {
  if (isImage(mimeType)) return null;
  const ext = extensionOf(name);
  if (ext === 'xlsx' || ext === 'csv') {
    const sheets = await readSheets(bytes, name);
    return Object.entries(sheets)
      .map(([sheet, rows]) => `### ${sheet}\n\n${markdownTable(rows)}`)
      .join('\n\n');
  }
  const type = documentTypeOf(name) ?? (mimeType.startsWith('text/') ? 'txt' : null);
  if (!type) return null;
  const sections = await documentSections(type, bytes);
  return sections.map((s) => (s.headings.length > 0 ? `${s.headings.join(' / ')}\n${s.text}` : s.text)).join('\n\n');
}
