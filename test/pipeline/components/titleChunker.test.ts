/**
 * TitleChunker, in the spirit of RAGFlow's `rag/flow/tests/test_title_chunker_*.py` and its
 * hierarchy/group chunkers: our own inputs and expectations.
 */
import { describe, expect, it } from 'vitest';
import { TitleChunkerParamsSchema, type TitleChunkerParams } from '../../../src/core/pipeline/components/TitleChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { titleChunks } from '../../../src/io/knowledge/pipeline/titleChunker';
import { tokens } from '../../../src/io/knowledge/pipeline/merge';

const MD_LEVELS = [['^#[^#]', '^##[^#]', '^###[^#]']];
const params = (p: Record<string, unknown>): TitleChunkerParams => TitleChunkerParamsSchema.parse({ levels: MD_LEVELS, hierarchy: 2, ...p });
/** Params with a cap below RAGFlow's allowed minimum, as its token-cap tests use to keep inputs small. */
const withCap = (cap: number, p: Record<string, unknown> = {}): TitleChunkerParams => ({ ...params({ chunk_token_cap: 0, ...p }), chunk_token_cap: cap });
const markdown = (md: string): PipelinePayload => ({ name: 'guide.md', output_format: 'markdown', markdown: md });
const json = (items: Array<Record<string, unknown>>): PipelinePayload => ({ name: 'book.pdf', output_format: 'json', json: items });

const GUIDE = ['# Guide', 'Welcome.', '## Install', 'Run the installer.', '### Linux', 'Use the package.', '## Use', 'Open the app.'].join('\n');

describe('TitleChunker params', () => {
  it('accepts a token cap of 0 (no cap) or 128 to 8000 only', () => {
    for (const ok of [0, 128, 512, 8000])
      expect(TitleChunkerParamsSchema.safeParse({ levels: MD_LEVELS, hierarchy: 1, chunk_token_cap: ok }).success).toBe(true);
    for (const bad of [50, 9000]) expect(TitleChunkerParamsSchema.safeParse({ levels: MD_LEVELS, hierarchy: 1, chunk_token_cap: bad }).success).toBe(false);
  });

  it('needs levels, a hierarchy for the hierarchy method, and patterns that compile', () => {
    const issues = (p: Record<string, unknown>) => (TitleChunkerParamsSchema.safeParse(p).error?.issues ?? []).map((i) => i.path.join('.'));
    expect(issues({ levels: [], hierarchy: 1 })).toContain('levels');
    expect(issues({ levels: MD_LEVELS })).toContain('hierarchy');
    expect(issues({ levels: [['^#[^#]', '(unclosed']], hierarchy: 1 })).toContain('levels.0.1');
    expect(TitleChunkerParamsSchema.safeParse({ levels: [['[\\(（][0-9]{,2}[\\)）]']], hierarchy: 1 }).success).toBe(true);
  });
});

describe('TitleChunker hierarchy method', () => {
  it('makes a chunk per heading at the chosen depth, under its heading path', () => {
    expect(titleChunks(params({ hierarchy: 2 }), markdown(GUIDE)).map((c) => c.text)).toEqual([
      '# Guide\nWelcome.\n## Install\nRun the installer.\n### Linux\nUse the package.\n',
      '# Guide\nWelcome.\n## Use\nOpen the app.\n',
    ]);
  });

  it('chunks at the deepest heading level present when hierarchy goes that deep, and at the top with hierarchy 1', () => {
    expect(titleChunks(params({ hierarchy: 3 }), markdown(GUIDE)).map((c) => c.text)).toEqual([
      '# Guide\nWelcome.\n## Install\nRun the installer.\n### Linux\nUse the package.\n',
      '# Guide\nWelcome.\n## Use\nOpen the app.\n',
    ]);
    expect(titleChunks(params({ hierarchy: 1 }), markdown(GUIDE))).toHaveLength(1);
  });

  it('gives a heading with its own body a chunk of its own when include_heading_content is on', () => {
    expect(titleChunks(params({ hierarchy: 2, include_heading_content: true }), markdown(GUIDE)).map((c) => c.text)).toEqual([
      '# Guide\nWelcome.\n',
      '# Guide\n## Install\nRun the installer.\n### Linux\nUse the package.\n',
      '# Guide\n## Use\nOpen the app.\n',
    ]);
  });

  it('keeps text before the first heading as a chunk of its own', () => {
    expect(titleChunks(params({ hierarchy: 1 }), markdown('Preface line.\n# One\nBody.')).map((c) => c.text)).toEqual(['Preface line.\n', '# One\nBody.\n']);
  });

  it('uses the family of patterns that matches the document best', () => {
    const levels = [MD_LEVELS[0]!, ['Chapter (I+V?|VI*|XI|IX|X)', 'Section [0-9]+']];
    const text = ['Chapter I', 'Intro.', 'Section 1', 'First.', 'Section 2', 'Second.', 'Chapter II', 'More.'].join('\n');
    const out = titleChunks(params({ levels, hierarchy: 2 }), { name: 'a.txt', output_format: 'text', text });
    expect(out.map((c) => c.text)).toEqual(['Chapter I\nIntro.\nSection 1\nFirst.\n', 'Chapter I\nIntro.\nSection 2\nSecond.\n', 'Chapter II\nMore.\n']);
  });

  it('prefixes the first chunk to the others with root_chunk_as_heading', () => {
    const out = titleChunks(params({ hierarchy: 1, root_chunk_as_heading: true }), markdown('Book title\n# One\nA.\n# Two\nB.'));
    expect(out.map((c) => c.text)).toEqual(['Book title\n\n# One\nA.\n', 'Book title\n\n# Two\nB.\n']);
  });

  it('merges the PDF coordinates of the lines in a chunk', () => {
    const out = titleChunks(
      params({ hierarchy: 1, chunk_token_cap: 0 }),
      json([
        { text: 'Introduction paragraph on page one.', positions: [[1, 10, 200, 50, 80]] },
        { text: 'Body text continues on page one.', positions: [[1, 12, 205, 90, 120]] },
        { text: 'Second chapter starts on page two.', positions: [[2, 15, 210, 40, 75]] },
      ]),
    );
    expect(out).toHaveLength(1);
    expect(new Set(out[0]!.page_num_int as number[])).toEqual(new Set([1, 2]));
    expect(out[0]!.position_int).toEqual([
      [1, 10, 200, 50, 80],
      [1, 12, 205, 90, 120],
      [2, 15, 210, 40, 75],
    ]);
  });

  it('keeps tables whole and apart from the text around them', () => {
    const out = titleChunks(
      params({ hierarchy: 1 }),
      json([{ text: '# One' }, { text: 'Body.' }, { text: '<table></table>', doc_type_kwd: 'table' }, { text: 'After.' }]),
    );
    expect(out.map((c) => [c.doc_type_kwd, c.text])).toEqual([
      ['text', '# One\nBody.\n'],
      ['table', '<table></table>'],
      ['text', 'After.\n'],
    ]);
  });
});

describe('TitleChunker group method', () => {
  it('groups the records of one section, small groups absorbing the next record', () => {
    const body = (n: number) => Array.from({ length: 40 }, (_, i) => `w${n}x${i}`).join(' ');
    const text = ['# One', body(1), body(2), '# Two', body(3)].join('\n');
    const out = titleChunks(params({ method: 'group', hierarchy: 1 }), { name: 'a.txt', output_format: 'text', text });
    expect(out.map((c) => c.text.split('\n').filter(Boolean).length)).toEqual([3, 2]);
  });
});

describe('TitleChunker token cap', () => {
  const sentences = Array.from({ length: 12 }, (_, i) => `Sentence ${i} is short。`).join('');

  it('re-splits an oversized chunk at sentence ends, each piece within the cap, nothing lost', () => {
    const out = titleChunks(withCap(12), json([{ text: sentences }]));
    expect(out.length).toBeGreaterThan(1);
    for (const c of out) {
      expect(tokens(c.text)).toBeLessThanOrEqual(12);
      expect(c.text.replace(/\n$/, '').endsWith('。')).toBe(true);
    }
    expect(out.map((c) => c.text).join('')).toBe(`${sentences}\n`);
  });

  it('hard-splits a run without sentence ends, losslessly', () => {
    const run = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const out = titleChunks(withCap(20), json([{ text: run }]));
    expect(out.length).toBeGreaterThan(1);
    for (const c of out) expect(tokens(c.text)).toBeLessThanOrEqual(20);
    expect(out.map((c) => c.text).join('')).toBe(`${run}\n`);
  });

  it('keeps the coordinates on the first piece only', () => {
    const out = titleChunks(withCap(12), json([{ text: sentences, positions: [[1, 10, 200, 50, 80]] }]));
    expect(out[0]!.position_int).toEqual([[1, 10, 200, 50, 80]]);
    for (const c of out.slice(1)) expect(c.position_int).toBeUndefined();
  });

  it('never splits a table, and a cap of 0 splits nothing', () => {
    const table = `<table>${'<tr><td>cell</td></tr>'.repeat(50)}</table>`;
    expect(titleChunks(withCap(12), json([{ text: table, doc_type_kwd: 'table' }]))).toEqual([{ text: table, doc_type_kwd: 'table' }]);
    expect(titleChunks(withCap(0), json([{ text: sentences }]))).toHaveLength(1);
  });
});
