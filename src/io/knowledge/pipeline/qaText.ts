/**
 * The question/answer readers behind QAChunker (RAGFlow's Go `chunker/qa.go`): delimited text
 * (tab, or CSV read as Go's `csv.Reader` with lazy quotes reads it), Markdown headings, and HTML
 * table rows. Each pair carries the source line or record it started at (`row`).
 */

export interface QAPair {
  question: string;
  answer: string;
  /** The 0-based source line or record (RAGFlow's `top_int`); -1 when unknown. */
  row: number;
}

/** RAGFlow's `detectDelimiter`: tab unless more lines split into exactly two at commas. */
export function detectDelimiter(lines: string[]): '\t' | ',' {
  let comma = 0;
  let tab = 0;
  for (const line of lines) {
    if (line.split(',').length === 2) comma += 1;
    if (line.split('\t').length === 2) tab += 1;
  }
  return tab >= comma ? '\t' : ',';
}

function tabPairs(lines: string[]): QAPair[] {
  const pairs: QAPair[] = [];
  let question = '';
  let answer = '';
  let row = 0;
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    const parts = line.split('\t');
    if (parts.length !== 2) {
      if (question) answer += `\n${line}`;
      return;
    }
    if (question && answer) pairs.push({ question: question.trim(), answer: answer.trim(), row });
    [question, answer] = parts as [string, string];
    row = i;
  });
  if (question) pairs.push({ question: question.trim(), answer: answer.trim(), row });
  return pairs;
}

/** One CSV record as Go's reader (lazy quotes) reads it, and the offset just past it. */
function readRecord(text: string, from: number): { fields: string[]; end: number } | null {
  let i = from;
  // Go's reader skips empty lines.
  while (i < text.length && text[i] === '\n') i += 1;
  if (i >= text.length) return null;
  const fields: string[] = [];
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        if (i >= text.length) break;
        const ch = text[i]!;
        if (ch === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          if (text[i + 1] === ',' || text[i + 1] === '\n' || i + 1 >= text.length) {
            i += 1;
            break;
          }
          field += '"'; // a lazy quote inside a quoted field is kept
          i += 1;
          continue;
        }
        field += ch;
        i += 1;
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n') field += text[i++];
    }
    fields.push(field);
    if (text[i] === ',') {
      i += 1;
      continue;
    }
    if (text[i] === '\n') i += 1;
    return { fields, end: i };
  }
}

function csvPairs(text: string, lines: string[]): QAPair[] {
  const lineStarts: number[] = [];
  let off = 0;
  for (const l of lines) {
    lineStarts.push(off);
    off += l.length + 1;
  }
  lineStarts.push(off);
  const pairs: QAPair[] = [];
  let question = '';
  let answer = '';
  let row = 0;
  let prevLine = 0;
  let recIdx = -1;
  let at = 0;
  for (let rec = readRecord(text, at); rec; rec = readRecord(text, at)) {
    at = rec.end;
    recIdx += 1;
    let curLine = prevLine;
    while (curLine < lineStarts.length && lineStarts[curLine]! < rec.end) curLine += 1;
    const raw = lines.slice(prevLine, curLine).join('\n');
    prevLine = curLine;
    if (rec.fields.length !== 2) {
      if (question) answer += `\n${raw}`;
      continue;
    }
    if (question && answer) pairs.push({ question: question.trim(), answer: answer.trim(), row });
    [question, answer] = rec.fields as [string, string];
    row = recIdx;
  }
  if (question) pairs.push({ question: question.trim(), answer: answer.trim(), row });
  return pairs;
}

/** Pairs from delimited text (RAGFlow's `extractQAText`). */
export function textPairs(raw: string): QAPair[] {
  if (!raw) return [];
  const text = raw.replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  return detectDelimiter(lines) === '\t' ? tabPairs(lines) : csvPairs(text, lines);
}

/** Pairs from Markdown (RAGFlow's `extractQAMarkdown`): the heading path is the question, the body under it the answer. */
export function markdownPairs(md: string): QAPair[] {
  if (!md) return [];
  const pairs: QAPair[] = [];
  const questions: string[] = [];
  const levels: number[] = [];
  let answer: string[] = [];
  let row = -1;
  let code = false;
  const flush = () => {
    const joined = answer.join('\n').trim();
    if (joined && questions.length > 0) pairs.push({ question: questions.join('\n'), answer: joined, row });
    answer = [];
  };
  md.split('\n').forEach((line, i) => {
    if (line.trim().startsWith('```')) code = !code;
    if (code) {
      answer.push(line);
      return;
    }
    const level = /^#*/.exec(line)![0].length;
    if (level === 0 || level > 6) {
      answer.push(line);
      return;
    }
    flush();
    row = i;
    while (levels.length > 0 && level <= levels[levels.length - 1]!) {
      questions.pop();
      levels.pop();
    }
    questions.push(line.slice(level).trim());
    levels.push(level);
  });
  flush();
  return pairs;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', '#39': "'" };
const unescapeHtml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e.toLowerCase()] ?? m;
  });

/** Pairs from HTML table rows (RAGFlow's `extractQATable`): the first two non-empty cells of each row. */
export function tablePairs(html: string): QAPair[] {
  const pairs: QAPair[] = [];
  // Go's `.` does not cross line breaks: a row written over several lines is not read, as in RAGFlow.
  for (const row of html.matchAll(/<tr[^>]*>(.*?)<\/tr>/gi)) {
    const texts = [...row[1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gi)].map((c) => unescapeHtml(c[1]!.replace(/<[^>]+>/g, '')).trim()).filter(Boolean);
    // RAGFlow leaves a table pair's row unset, which reads as 0.
    if (texts.length >= 2) pairs.push({ question: texts[0]!, answer: texts[1]!, row: 0 });
  }
  return pairs;
}
