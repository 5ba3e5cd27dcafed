/**
 * Documents to text sections: plain text, Markdown (sections at headings), HTML (converted with
 * its headings kept as Markdown headings) and PDF (text layer, a section per page). A file that
 * cannot be read is a clear, non-retryable error.
 */
import { convert } from 'html-to-text';
import { markdownSections, type Section } from './chunking';
import { AppError } from '../../errors';

export const DOCUMENT_TYPES = ['txt', 'md', 'html', 'pdf'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The document type of a file name (by extension), or null when unsupported. */
export function documentTypeOf(name: string): DocumentType | null {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  if (ext === 'txt' || ext === 'text' || ext === 'csv' || ext === 'json' || ext === 'log') return 'txt';
  if (ext === 'md' || ext === 'markdown') return 'md';
  if (ext === 'html' || ext === 'htm') return 'html';
  if (ext === 'pdf') return 'pdf';
  return null;
}

const HEADINGS = [1, 2, 3, 4, 5, 6].map((level) => ({
  selector: `h${level}`,
  format: 'markdownHeading',
  options: { level },
}));

/** HTML as Markdown-ish text: headings become `#` lines, links keep their text only. */
export function htmlToMarkdown(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [...HEADINGS, { selector: 'a', options: { ignoreHref: true } }, { selector: 'img', format: 'skip' }],
    formatters: {
      markdownHeading: (elem, walk, builder, options) => {
        builder.openBlock({ leadingLineBreaks: 2 });
        builder.addInline(`${'#'.repeat(Number((options as { level?: number }).level ?? 1))} `);
        walk(elem.children, builder);
        builder.closeBlock({ trailingLineBreaks: 2 });
      },
    },
  });
}

async function pdfSections(bytes: Uint8Array): Promise<Section[]> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    pages = (await extractText(pdf, { mergePages: false })).text as string[];
  } catch (err) {
    throw new AppError('BAD_REQUEST', `The PDF cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  return pages.map((text, i) => ({ headings: pages.length > 1 ? [`Page ${i + 1}`] : [], text })).filter((s) => s.text.trim());
}

/** Sections of a document's text. */
export async function documentSections(type: string, bytes: Uint8Array): Promise<Section[]> {
  const text = () => new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '');
  switch (type) {
    case 'md':
      return markdownSections(text());
    case 'html':
      return markdownSections(htmlToMarkdown(text()));
    case 'pdf':
      return pdfSections(bytes);
    case 'txt': {
      const t = text().trim();
      return t ? [{ headings: [], text: t }] : [];
    }
    default:
      throw new AppError('BAD_REQUEST', `Documents of type "${type}" cannot be parsed (supported: ${DOCUMENT_TYPES.join(', ')})`);
  }
}
