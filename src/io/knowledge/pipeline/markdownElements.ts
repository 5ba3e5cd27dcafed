/**
 * Markdown into RAGFlow's parser sections (`MarkdownElementExtractor.extract_elements`): a heading
 * line, a fenced code block, a list, a blockquote or a paragraph (lines up to the next blank line
 * or block) is one section. Tables stay inside their paragraph, as with `separate_tables=False`.
 */
const HEADING = /^#{1,6}\s+.*$/;
const LIST = /^\s*([-*+]|\d+\.)\s+.*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

export function markdownElements(markdown: string): string[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (HEADING.test(line)) {
      out.push(line);
      i++;
    } else if (FENCE.test(line)) {
      const fence = FENCE.exec(line)![1]!;
      const block = [line];
      i++;
      while (i < lines.length) {
        const l = lines[i]!;
        block.push(l);
        i++;
        if (new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(l)) break;
      }
      out.push(block.join('\n'));
    } else if (LIST.test(line)) {
      const block = [line];
      i++;
      while (i < lines.length && (LIST.test(lines[i]!) || !lines[i]!.trim() || /^\s+\S/.test(lines[i]!))) block.push(lines[i++]!);
      out.push(block.join('\n'));
    } else if (line.trim().startsWith('>')) {
      const block = [line];
      i++;
      while (i < lines.length && (lines[i]!.trim().startsWith('>') || !lines[i]!.trim())) block.push(lines[i++]!);
      out.push(block.join('\n'));
    } else if (line.trim()) {
      const block = [line];
      i++;
      while (
        i < lines.length &&
        lines[i]!.trim() &&
        !HEADING.test(lines[i]!) &&
        !FENCE.test(lines[i]!) &&
        !LIST.test(lines[i]!) &&
        !lines[i]!.trim().startsWith('>')
      )
        block.push(lines[i++]!);
      out.push(block.join('\n'));
    } else i++;
  }
  return out.filter((s) => s.trim());
}
