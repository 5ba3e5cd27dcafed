/**
 * TokenChunker, in the spirit of RAGFlow's `rag/flow/tests/test_token_chunker*.py`: our own
 * inputs and expectations for the behaviours those tests pin down. Tokens are our counter's (a
 * word or a punctuation mark is one).
 */
import { describe, expect, it } from 'vitest';
import { TokenChunkerParamsSchema } from '../../../src/core/pipeline/components/TokenChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { tokenChunks } from '../../../src/io/knowledge/pipeline/tokenChunker';

const params = (p: Record<string, unknown>) => TokenChunkerParamsSchema.parse(p);
const json = (items: Array<Record<string, unknown>>): PipelinePayload => ({ name: 'doc.pdf', output_format: 'json', json: items });
const texts = (chunks: Array<{ text: string }>) => chunks.map((c) => c.text);

describe('TokenChunker params', () => {
  it('reads the removed "token_size" mode as "delimiter" and refuses unknown modes', () => {
    expect(params({ delimiter_mode: 'token_size' }).delimiter_mode).toBe('delimiter');
    expect(TokenChunkerParamsSchema.safeParse({ delimiter_mode: 'nope' }).success).toBe(false);
  });

  it("takes RAGFlow's defaults and drops empty delimiters", () => {
    expect(params({})).toMatchObject({ chunk_token_size: 512, delimiters: ['\n'], overlapped_percent: 0, children_delimiters: [] });
    expect(params({ delimiters: ['', '`##`', 3] }).delimiters).toEqual(['`##`']);
    expect(params({ delimiters: '`;`' }).delimiters).toEqual(['`;`']);
  });
});

describe('TokenChunker on JSON items', () => {
  it('reads the upstream chunks, not the parser JSON, when the input format is chunks', () => {
    const input: PipelinePayload = { name: 'x', output_format: 'chunks', chunks: [{ text: 'CHAPTER-AWARE' }], json: [{ text: 'RAW-PARSER-JSON' }] };
    expect(tokenChunks(params({ delimiter_mode: 'one' }), input)).toEqual([{ text: 'CHAPTER-AWARE' }]);
  });

  it('splits at a backtick-quoted delimiter and never keeps the delimiter text', () => {
    const out = tokenChunks(params({ delimiters: ['`##`'] }), json([{ text: 'first part##second part##third part', doc_type_kwd: 'text' }]));
    expect(texts(out)).toEqual(['first part', 'second part', 'third part']);
  });

  it('keeps both sides of consecutive delimiters', () => {
    expect(texts(tokenChunks(params({ delimiters: ['`##`'] }), json([{ text: 'A####B' }])))).toEqual(['A', 'B']);
  });

  it('joins adjacent text items with a line break, never glued', () => {
    expect(texts(tokenChunks(params({ delimiters: [] }), json([{ text: 'hello' }, { text: 'world' }])))).toEqual(['hello\nworld']);
  });

  it('splits chunks again at the children delimiters, each child remembering its parent', () => {
    const out = tokenChunks(params({ delimiters: [], children_delimiters: ['|'] }), json([{ text: 'alpha|beta' }]));
    expect(out.map((c) => [c.text, c.mom])).toEqual([
      ['alpha', 'alpha|beta'],
      ['beta', 'alpha|beta'],
    ]);
  });

  it('keeps the PDF coordinates of merged items as position_int, page_num_int and top_int', () => {
    const out = tokenChunks(
      params({ delimiters: [] }),
      json([
        { text: 'hello', positions: [[1, 0, 10, 0, 5]] },
        { text: 'world', positions: [[2, 0, 20, 3, 8]] },
      ]),
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      position_int: [
        [1, 0, 10, 0, 5],
        [2, 0, 20, 3, 8],
      ],
      page_num_int: [1, 2],
      top_int: [0, 3],
    });
  });

  it('merges items up to the token size (one may overflow it) and loses none', () => {
    const out = tokenChunks(params({ delimiters: [], chunk_token_size: 5 }), json(Array.from({ length: 12 }, (_, i) => ({ text: `item${i}` }))));
    expect(out.length).toBeGreaterThan(1);
    for (const c of out) expect(c.text.split('\n').length).toBeLessThanOrEqual(6);
    expect(out.map((c) => c.text).join('\n')).toBe(Array.from({ length: 12 }, (_, i) => `item${i}`).join('\n'));
  });

  it('keeps an image whole and starts a new chunk after it', () => {
    const items = [
      ...Array.from({ length: 6 }, (_, i) => ({ text: `t${i}`, doc_type_kwd: 'text' })),
      { text: 'IMG', doc_type_kwd: 'image', img_id: 'im1' },
      ...Array.from({ length: 12 }, (_, i) => ({ text: `u${i}`, doc_type_kwd: 'text' })),
    ];
    const out = tokenChunks(params({ delimiters: [], chunk_token_size: 5 }), json(items));
    const kinds = out.map((c) => c.doc_type_kwd);
    expect(kinds.filter((k) => k === 'image')).toHaveLength(1);
    expect(out.find((c) => c.doc_type_kwd === 'image')).toMatchObject({ text: 'IMG', img_id: 'im1' });
    const at = kinds.indexOf('image');
    expect(out.slice(0, at).every((c) => c.text.startsWith('t'))).toBe(true);
    expect(out.slice(at + 1).every((c) => c.text.startsWith('u'))).toBe(true);
  });

  it('gives each delimited piece only the coordinates of the items it spans', () => {
    const out = tokenChunks(
      params({ delimiters: ['`。`'] }),
      json([
        { text: '第一章。第二段', positions: [[1, 0, 10, 0, 5]] },
        { text: '第三章。第四章', positions: [[2, 0, 20, 0, 8]] },
      ]),
    );
    expect(texts(out)).toEqual(['第一章', '第二段\n第三章', '第四章']);
    expect(out.map((c) => c.page_num_int)).toEqual([[1], [1, 2], [2]]);
  });

  it('starts each new chunk with the tail of the previous one and the coordinates of that tail only', () => {
    const letters = ['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee', 'fffff'];
    const out = tokenChunks(
      params({ delimiters: [], chunk_token_size: 5, overlapped_percent: 0.2 }),
      json(letters.map((text, i) => ({ text, positions: [[i + 1, 0, 10, 0, 5]] }))),
    );
    expect(out).toHaveLength(2);
    expect(out[1]!.text).toBe('\neeeeefffff');
    expect(out[1]!.page_num_int).toEqual([5, 6]);
  });

  it('cuts the overlap on the visible text, so no coordinate tag leaks into the next chunk', () => {
    const out = tokenChunks(
      params({ delimiters: [], chunk_token_size: 5, overlapped_percent: 0.2 }),
      json([{ text: 'ABCD@@100\t200\t300\t400##' }, { text: 'WXYZ' }]),
    );
    expect(texts(out)).toEqual(['ABCD', 'DWXYZ']);
  });

  it('adds the surrounding text to a table when a table context is asked for', () => {
    const out = tokenChunks(
      params({ delimiters: ['`\n\n`'], table_context_size: 3 }),
      json([{ text: 'Before one. Before two.' }, { text: '<table><tr><td>1</td></tr></table>', doc_type_kwd: 'table' }, { text: 'After one. After two.' }]),
    );
    const table = out.find((c) => c.doc_type_kwd === 'table')!;
    // Whole sentences from each side until three tokens (a word or a mark each) are taken.
    expect(table.text).toBe('Before two.<table><tr><td>1</td></tr></table>After one. ');
  });

  it('makes one chunk of everything in "one" mode, coordinate tags removed', () => {
    const input: PipelinePayload = {
      name: 'x',
      output_format: 'chunks',
      chunks: [{ text: 'Sentence one@@1\t2\t3\t4##' }, { text: 'Sentence two@@1\t2\t3\t4##' }],
    };
    expect(tokenChunks(params({ delimiter_mode: 'one' }), input)).toEqual([{ text: 'Sentence one\nSentence two' }]);
  });
});

describe('TokenChunker on text', () => {
  const text = (t: string): PipelinePayload => ({ name: 'a.txt', output_format: 'text', text: t });

  it('makes a chunk per delimited piece whatever the token size', () => {
    expect(texts(tokenChunks(params({ delimiters: ['`|`'], chunk_token_size: 1 }), text('aaa|bbb|ccc')))).toEqual(['aaa', 'bbb', 'ccc']);
  });

  it('never cuts a line when merging lines to the token size', () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} alpha beta gamma delta epsilon zeta eta theta iota kappa`);
    const out = tokenChunks(params({ chunk_token_size: 64, delimiters: ['\n'] }), text(sentences.join('\n')));
    expect(out.length).toBeGreaterThan(3);
    for (const s of sentences) expect(out.some((c) => c.text.includes(s))).toBe(true);
  });

  it('repeats the tail of a chunk at the start of the next with an overlap', () => {
    const lines = Array.from({ length: 8 }, (_, i) => `line ${i} has five words`);
    const out = tokenChunks(params({ chunk_token_size: 10, delimiters: ['\n'], overlapped_percent: 0.5 }), text(lines.join('\n')));
    expect(out.length).toBeGreaterThan(1);
    const prev = out[0]!.text;
    expect(
      out[1]!.text.startsWith(
        prev
          .slice(Math.trunc(prev.length / 2))
          .trim()
          .slice(0, 5),
      ),
    ).toBe(true);
  });

  it('splits text children with their parent as mom', () => {
    const out = tokenChunks(params({ delimiters: ['`\n\n`'], children_delimiters: [';'] }), text('a; b\n\nc'));
    expect(out).toEqual([
      { text: 'a', mom: 'a; b' },
      { text: ' b', mom: 'a; b' },
      { text: 'c', mom: 'c' },
    ]);
  });

  it('strips coordinate tags in "one" mode', () => {
    expect(tokenChunks(params({ delimiter_mode: 'one' }), text('Hello world@@1\t2\t3\t4##'))).toEqual([{ text: 'Hello world' }]);
  });
});
