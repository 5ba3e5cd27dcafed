/**
 * Slides (.pptx) as RAGFlow's Parser reads them with its DeepDOC PPT parser: the text of each
 * slide, in the presentation's order (`ppt/presentation.xml` and its relationships), paragraphs
 * one per line (text frames and table cells alike), an item per slide with its `slide_number`;
 * empty slides are left out. The old binary .ppt has no reader here.
 */
import { AppError } from '../../../errors';
import { readZip } from '../../text/zip';

const utf8 = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : '');
const unescapeXml = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-f]+|#[0-9]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return named[e.toLowerCase()] ?? '';
  });

/** The slide parts in presentation order (by relationship), else by their number. */
function slideOrder(files: Map<string, Uint8Array>): string[] {
  const rels = new Map<string, string>();
  for (const m of utf8(files.get('ppt/_rels/presentation.xml.rels')).matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(m[0])?.[1];
    const target = /\bTarget="([^"]+)"/.exec(m[0])?.[1];
    if (id && target) rels.set(id, target.replace(/^\/?(ppt\/)?/, 'ppt/'));
  }
  const ordered = [...utf8(files.get('ppt/presentation.xml')).matchAll(/<p:sldId\b[^>]*\br:id="([^"]+)"/g)]
    .map((m) => rels.get(m[1]!))
    .filter((p): p is string => p !== undefined && files.has(p));
  if (ordered.length > 0) return ordered;
  const num = (p: string) => Number(/(\d+)\.xml$/.exec(p)?.[1] ?? 0);
  return [...files.keys()].filter((p) => /^ppt\/slides\/slide\d+\.xml$/.test(p)).sort((a, b) => num(a) - num(b));
}

/** A slide's text: each paragraph's runs joined, paragraphs one per line. */
export function slideText(xml: string): string {
  const lines: string[] = [];
  for (const p of xml.matchAll(/<a:p\b[^>]*>([\s\S]*?)<\/a:p>/g)) {
    const line = [...p[1]!.matchAll(/<a:t(?:\s[^>]*)?>([\s\S]*?)<\/a:t>/g)].map((t) => unescapeXml(t[1]!)).join('');
    if (line.trim()) lines.push(line);
  }
  return lines.join('\n');
}

export function slideItems(name: string, bytes: Uint8Array): Array<{ text: string; doc_type_kwd: 'text'; slide_number: number }> {
  if (/\.ppt$/i.test(name))
    throw new AppError('COMPONENT_UNSUPPORTED', 'The Parser cannot read the old binary .ppt format in this build; save it as .pptx', { fileType: 'slides' });
  let files: Map<string, Uint8Array>;
  try {
    files = readZip(bytes);
  } catch (err) {
    throw new AppError('BAD_REQUEST', `${name} cannot be read as a PowerPoint file: ${err instanceof Error ? err.message : String(err)}`);
  }
  return slideOrder(files)
    .map((path, i) => ({ text: slideText(utf8(files.get(path))), doc_type_kwd: 'text' as const, slide_number: i + 1 }))
    .filter((s) => s.text.trim());
}
