/**
 * A small Markdown to HTML rendering for QAChunker's Markdown answers (RAGFlow renders them with
 * gomarkdown): paragraphs, headings, bullet and numbered lists, fenced code, and inline code,
 * bold, italics and links. Text is HTML-escaped; anything else reads as paragraph text.
 */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function inline(s: string): string {
  return esc(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
}

export function markdownToHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split('\n');
  let para: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | null = null;
  const flushPara = () => {
    if (para.length > 0) out.push(`<p>${inline(para.join('\n'))}</p>\n`);
    para = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>\n${list.items.map((i) => `<li>${inline(i)}</li>\n`).join('')}</${list.tag}>\n`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim().startsWith('```')) {
      flushPara();
      flushList();
      const code: string[] = [];
      for (i += 1; i < lines.length && !lines[i]!.trim().startsWith('```'); i++) code.push(lines[i]!);
      out.push(`<pre><code>${esc(code.map((c) => `${c}\n`).join(''))}</code></pre>\n`);
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      flushPara();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading || !line.trim()) {
      flushPara();
      flushList();
      if (heading) out.push(`<h${heading[1]!.length}>${inline(heading[2]!)}</h${heading[1]!.length}>\n`);
      continue;
    }
    flushList();
    para.push(line);
  }
  flushPara();
  flushList();
  return out.join('');
}
