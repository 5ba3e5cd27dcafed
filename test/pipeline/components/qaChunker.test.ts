/**
 * QAChunker, in the spirit of RAGFlow's Go `chunker/qa_test.go` and `qa_batch2_test.go`: pairs
 * from tab- or comma-delimited text, Markdown headings and HTML table rows, RAGFlow's prefixes,
 * and the source row as `top_int`.
 */
import { describe, expect, it } from 'vitest';
import { QAChunkerParamsSchema } from '../../../src/core/pipeline/components/QAChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { qaChunks, rmQAPrefix } from '../../../src/io/knowledge/pipeline/qaChunker';

const en = QAChunkerParamsSchema.parse({ lang: 'English' });
const zh = QAChunkerParamsSchema.parse({});
const text = (t: string): PipelinePayload => ({ name: 'qa.txt', output_format: 'text', text: t });
const texts = (chunks: Array<{ text: string }>) => chunks.map((c) => c.text);

const cases: Array<{ name: string; input: PipelinePayload; want: string[] }> = [
  {
    name: 'a tab-delimited line is a pair',
    input: text('What is Go?\tGo is a programming language.'),
    want: ['Question: What is Go?\tAnswer: Go is a programming language.'],
  },
  {
    name: 'a comma-delimited line is a pair',
    input: text('What is Rust?,Rust is a systems language.'),
    want: ['Question: What is Rust?\tAnswer: Rust is a systems language.'],
  },
  {
    name: 'Q:/A: style prefixes are removed',
    input: text('Question: What is Go?\tAnswer: Go is a language.'),
    want: ['Question: What is Go?\tAnswer: Go is a language.'],
  },
  { name: 'prefixes are removed whatever their case', input: text('QUESTION: Hello\tANSWER: World'), want: ['Question: Hello\tAnswer: World'] },
  {
    name: 'a prefix followed by a space is removed',
    input: text('A language model is useful\tQ How does it work'),
    want: ['Question: language model is useful\tAnswer: How does it work'],
  },
  { name: 'an empty text gives no pair', input: text(''), want: [] },
  {
    name: 'lines without the delimiter continue the previous answer',
    input: text('Q1\tfirst line\nsecond line\nQ2\tA2'),
    want: ['Question: Q1\tAnswer: first line\nsecond line', 'Question: Q2\tAnswer: A2'],
  },
  { name: 'a last question without answer is still a pair', input: text('Q1\tA1\nQ2\t'), want: ['Question: Q1\tAnswer: A1', 'Question: Q2\tAnswer: '] },
  {
    name: 'a quoted CSV field may hold commas and line breaks',
    input: text('"Where, exactly?","On the\nsecond floor"\nWhen?,Now'),
    want: ['Question: Where, exactly?\tAnswer: On the\nsecond floor', 'Question: When?\tAnswer: Now'],
  },
  {
    name: 'Markdown: the heading path is the question and the body, rendered to HTML, the answer',
    input: { name: 'qa.md', output_format: 'markdown', markdown: '# Install\n## On Linux\nRun **apt** install.\n## On Mac\nUse brew.' },
    want: ['Question: Install\nOn Linux\tAnswer: <p>Run <strong>apt</strong> install.</p>\n', 'Question: Install\nOn Mac\tAnswer: <p>Use brew.</p>\n'],
  },
  {
    name: 'Markdown: a heading needs no space after its hashes, and a heading without body is no pair',
    input: { name: 'qa.md', output_format: 'markdown', markdown: '#Empty\n#Title\nbody' },
    want: ['Question: Title\tAnswer: <p>body</p>\n'],
  },
  {
    name: 'Markdown: a # inside a code block is answer text',
    input: { name: 'qa.md', output_format: 'markdown', markdown: '# Shell\n```\n# comment\n```' },
    want: ['Question: Shell\tAnswer: <pre><code># comment\n</code></pre>\n'],
  },
  {
    name: 'HTML: the first two non-empty cells of each row, header included',
    input: {
      name: 'qa.xlsx',
      output_format: 'html',
      html: '<table><tr><th>Question</th><th>Answer</th></tr><tr><td>Why &amp; how?</td><td></td><td><b>Because</b></td></tr><tr><td>alone</td></tr></table>',
    },
    want: ['Question: Question\tAnswer: Answer', 'Question: Why & how?\tAnswer: Because'],
  },
  {
    name: 'JSON: each item read as delimited lines',
    input: { name: 'qa.docx', output_format: 'json', json: [{ text: 'Q1\tA1' }, { text: 'no pair here' }, { text: 'Q2\tA2' }] },
    want: ['Question: Q1\tAnswer: A1', 'Question: Q2\tAnswer: A2'],
  },
];

describe('QAChunker', () => {
  for (const c of cases) it(c.name, () => expect(texts(qaChunks(en, c.input))).toEqual(c.want));

  it("uses RAGFlow's Chinese prefixes unless lang is English", () => {
    expect(texts(qaChunks(zh, text('什么是Go？\tGo是一种编程语言。')))).toEqual(['问题：什么是Go？\t回答：Go是一种编程语言。']);
    expect(texts(qaChunks(QAChunkerParamsSchema.parse({ lang: 'english' }), text('a\tb')))).toEqual(['Question: a\tAnswer: b']);
  });

  it('sets top_int to the source line of each pair', () => {
    expect(qaChunks(en, text('Q1\tA1\nQ2\tA2')).map((c) => c.top_int)).toEqual([[0], [1]]);
  });

  it("carries a JSON item's image and coordinates onto its pairs", () => {
    const [chunk] = qaChunks(en, { name: 'qa.pdf', output_format: 'json', json: [{ text: 'Q\tA', img_id: 'img-1', _pdf_positions: [[2, 1, 50, 30, 40]] }] });
    expect(chunk).toEqual({
      text: 'Question: Q\tAnswer: A',
      doc_type_kwd: 'image',
      img_id: 'img-1',
      position_int: [[2, 1, 50, 30, 40]],
      page_num_int: [2],
      top_int: [30],
    });
  });

  it('strips every separator after a prefix', () => {
    expect(rmQAPrefix('Q:: answer')).toBe('answer');
    expect(rmQAPrefix('问题：\t 什么')).toBe('什么');
    expect(rmQAPrefix('Quick question')).toBe('Quick question');
  });
});
