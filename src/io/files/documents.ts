/**
 * DocGenerator's files from Markdown-ish content, with maintained libraries: PDF with pdfkit,
 * DOCX with docx; txt, Markdown and HTML as text. Header, footer, watermark, page numbers and a
 * timestamp as RAGFlow's options ask. Block structure read from the content: `#` headings,
 * `-`/`*`/`1.` list items, blank-line paragraphs, `**bold**` runs.
 */
import { AlignmentType, Document, Footer, Header, HeadingLevel, Packer, PageNumber, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';

export const DOC_FORMATS = ['pdf', 'docx', 'txt', 'markdown', 'html'] as const;
export type DocFormat = (typeof DOC_FORMATS)[number];

export interface DocOptions {
  format: DocFormat;
  content: string;
  header: string;
  footer: string;
  watermark: string;
  pageNumbers: boolean;
  timestamp: boolean;
  fontSize: number;
  now: Date;
}

export const MIME_TYPES: Record<DocFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
};

export const EXTENSIONS: Record<DocFormat, string> = { pdf: 'pdf', docx: 'docx', txt: 'txt', markdown: 'md', html: 'html' };

type Block = { kind: 'heading'; level: number; text: string } | { kind: 'item'; marker: string; text: string } | { kind: 'para'; text: string };

export function blocks(content: string): Block[] {
  const out: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length > 0) out.push({ kind: 'para', text: para.join(' ') });
    para = [];
  };
  for (const raw of content.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    const li = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (h) {
      flush();
      out.push({ kind: 'heading', level: h[1]!.length, text: h[2]! });
    } else if (li) {
      flush();
      out.push({ kind: 'item', marker: /\d/.test(li[1]!) ? li[1]! : '•', text: li[2]! });
    } else if (line.trim() === '') flush();
    else para.push(line.trim());
  }
  flush();
  return out;
}

/** Text runs of a line: `**bold**` and `__bold__` spans, the rest plain. */
function spans(text: string): Array<{ text: string; bold: boolean }> {
  const out: Array<{ text: string; bold: boolean }> = [];
  let last = 0;
  for (const m of text.matchAll(/\*\*(.+?)\*\*|__(.+?)__/g)) {
    if (m.index! > last) out.push({ text: text.slice(last, m.index), bold: false });
    out.push({ text: m[1] ?? m[2]!, bold: true });
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), bold: false });
  return out.length > 0 ? out : [{ text: '', bold: false }];
}

const plainText = (text: string) =>
  spans(text)
    .map((s) => s.text)
    .join('');

export function timestampText(now: Date): string {
  return `Generated: ${now.toISOString().slice(0, 19).replace('T', ' ')}`;
}

async function pdf(o: DocOptions): Promise<Uint8Array> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 72, bottom: 72, left: 72, right: 72 },
    bufferPages: true,
    info: { Title: o.header || 'Document' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  const base = o.fontSize;
  for (const b of blocks(o.content)) {
    if (b.kind === 'heading') {
      doc
        .moveDown(0.5)
        .font('Helvetica-Bold')
        .fontSize(base + Math.max(0, 8 - 2 * b.level))
        .text(plainText(b.text));
      doc.moveDown(0.3);
      continue;
    }
    const prefix = b.kind === 'item' ? `${b.marker} ` : '';
    const runs = spans(b.text);
    doc.fontSize(base);
    runs.forEach((r, i) => {
      doc
        .font(r.bold ? 'Helvetica-Bold' : 'Helvetica')
        .text(`${i === 0 ? prefix : ''}${r.text}`, { continued: i < runs.length - 1, indent: b.kind === 'item' ? 12 : 0 });
    });
    doc.moveDown(b.kind === 'item' ? 0.2 : 0.6);
  }
  // Header, footer, watermark, page numbers and timestamp on every page, once the page count is known.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { width, height } = doc.page;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(9).fillColor('#555555');
    if (o.header) doc.text(o.header, 72, 36, { width: width - 144, align: 'center', lineBreak: false });
    if (o.timestamp) doc.text(timestampText(o.now), 72, 36, { width: width - 144, align: 'right', lineBreak: false });
    if (o.footer) doc.text(o.footer, 72, height - 48, { width: width - 144, align: 'left', lineBreak: false });
    if (o.pageNumbers) doc.text(`Page ${i - range.start + 1} of ${range.count}`, 72, height - 48, { width: width - 144, align: 'right', lineBreak: false });
    if (o.watermark) {
      doc.save();
      doc.rotate(-45, { origin: [width / 2, height / 2] });
      doc
        .fontSize(60)
        .fillColor('#cccccc')
        .opacity(0.35)
        .text(o.watermark, 0, height / 2 - 30, { width, align: 'center', lineBreak: false });
      doc.restore();
      doc.opacity(1);
    }
    doc.fillColor('black');
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

async function docx(o: DocOptions): Promise<Uint8Array> {
  const size = o.fontSize * 2; // half-points
  const levels = [
    HeadingLevel.HEADING_1,
    HeadingLevel.HEADING_2,
    HeadingLevel.HEADING_3,
    HeadingLevel.HEADING_4,
    HeadingLevel.HEADING_5,
    HeadingLevel.HEADING_6,
  ];
  const body = blocks(o.content).map((b) => {
    if (b.kind === 'heading')
      return new Paragraph({ heading: levels[b.level - 1], children: spans(b.text).map((r) => new TextRun({ text: r.text, bold: true })) });
    const runs = spans(b.text).map((r) => new TextRun({ text: r.text, bold: r.bold, size }));
    if (b.kind === 'item') return new Paragraph({ children: [new TextRun({ text: `${b.marker} `, size }), ...runs], indent: { left: 360 } });
    return new Paragraph({ children: runs, spacing: { after: 120 } });
  });
  const headerParas: Paragraph[] = [];
  if (o.header || o.timestamp)
    headerParas.push(
      new Paragraph({
        alignment: AlignmentType.CENTER,
        children: [
          new TextRun({ text: o.header, size: 18 }),
          ...(o.timestamp ? [new TextRun({ text: `${o.header ? '    ' : ''}${timestampText(o.now)}`, size: 16, color: '777777' })] : []),
        ],
      }),
    );
  // The watermark: large light text at the top of every page (a floating shape needs VML, which docx does not write).
  if (o.watermark)
    headerParas.push(new Paragraph({ alignment: AlignmentType.CENTER, children: [new TextRun({ text: o.watermark, size: 72, color: 'D9D9D9', bold: true })] }));
  const footerRuns: TextRun[] = [];
  if (o.footer) footerRuns.push(new TextRun({ text: o.footer, size: 18 }));
  if (o.pageNumbers)
    footerRuns.push(new TextRun({ children: [`${o.footer ? '    ' : ''}Page `, PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES], size: 18 }));
  const document = new Document({
    sections: [
      {
        headers: headerParas.length > 0 ? { default: new Header({ children: headerParas }) } : undefined,
        footers:
          footerRuns.length > 0 ? { default: new Footer({ children: [new Paragraph({ alignment: AlignmentType.CENTER, children: footerRuns })] }) } : undefined,
        children: body.length > 0 ? body : [new Paragraph('')],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function html(o: DocOptions): string {
  const inline = (t: string) =>
    spans(t)
      .map((r) => (r.bold ? `<strong>${escapeHtml(r.text)}</strong>` : escapeHtml(r.text)))
      .join('');
  const parts: string[] = [];
  let list: string | null = null;
  for (const b of blocks(o.content)) {
    const kind = b.kind === 'item' ? (/\d/.test(b.marker) ? 'ol' : 'ul') : null;
    if (list && list !== kind) {
      parts.push(`</${list}>`);
      list = null;
    }
    if (b.kind === 'heading') parts.push(`<h${b.level}>${inline(b.text)}</h${b.level}>`);
    else if (b.kind === 'item') {
      if (!list) {
        parts.push(`<${kind}>`);
        list = kind;
      }
      parts.push(`<li>${inline(b.text)}</li>`);
    } else parts.push(`<p>${inline(b.text)}</p>`);
  }
  if (list) parts.push(`</${list}>`);
  const head = [
    o.header ? `<header>${escapeHtml(o.header)}</header>` : '',
    o.timestamp ? `<p class="timestamp">${escapeHtml(timestampText(o.now))}</p>` : '',
  ].join('');
  const foot = o.footer ? `<footer>${escapeHtml(o.footer)}</footer>` : '';
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(o.header || 'Document')}</title></head><body style="font-size:${o.fontSize}pt">${head}\n${parts.join('\n')}\n${foot}</body></html>\n`;
}

function txt(o: DocOptions): string {
  const lines = blocks(o.content).map((b) => (b.kind === 'item' ? `${b.marker} ${plainText(b.text)}` : plainText(b.text)));
  return [o.header, o.timestamp ? timestampText(o.now) : '', lines.join('\n\n'), o.footer].filter((s) => s).join('\n\n') + '\n';
}

function markdown(o: DocOptions): string {
  return [o.timestamp ? timestampText(o.now) : '', o.content.trim()].filter((s) => s).join('\n\n') + '\n';
}

/** The document's bytes. */
export async function generateDocument(o: DocOptions): Promise<Uint8Array> {
  switch (o.format) {
    case 'pdf':
      return pdf(o);
    case 'docx':
      return docx(o);
    case 'html':
      return new TextEncoder().encode(html(o));
    case 'markdown':
      return new TextEncoder().encode(markdown(o));
    default:
      return new TextEncoder().encode(txt(o));
  }
}

/** RAGFlow's `sanitize_filename`, or `document_<timestamp>_<8 hex>.<ext>` when none is given. */
export function documentFilename(name: string, format: DocFormat, now: Date, suffix: string): string {
  const ext = EXTENSIONS[format];
  const cleaned = String(name ?? '')
    // eslint-disable-next-line no-control-regex -- RAGFlow's sanitize_filename drops control characters
    .replace(/[\\/\x00-\x1f?#%*:|<>"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[ .]+|[ .]+$/g, '');
  if (!name || !name.trim()) {
    const ts = now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '_');
    return `document_${ts}_${suffix.slice(0, 8)}.${ext}`;
  }
  if (!cleaned) return `file.${ext}`;
  const dot = cleaned.lastIndexOf('.');
  const base = (dot > 0 ? cleaned.slice(0, dot) : cleaned).slice(0, 180).trimEnd() || 'file';
  return `${base}.${ext}`;
}
