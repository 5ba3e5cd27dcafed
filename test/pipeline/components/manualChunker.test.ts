/**
 * ManualChunker, in the spirit of RAGFlow's Go `chunker/manual_test.go`: TitleChunker's group
 * method after re-sorting positioned records into reading order (page, top, left); without
 * coordinates exactly TitleChunker's group output.
 */
import { describe, expect, it } from 'vitest';
import { ManualChunkerParamsSchema } from '../../../src/core/pipeline/components/ManualChunker';
import { TitleChunkerParamsSchema } from '../../../src/core/pipeline/components/TitleChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { manualChunks } from '../../../src/io/knowledge/pipeline/manualChunker';
import { titleChunks } from '../../../src/io/knowledge/pipeline/titleChunker';

const LEVELS = [['^#[^#]', '^##[^#]', '^###[^#]']];
const p = ManualChunkerParamsSchema.parse({ levels: LEVELS, hierarchy: 0 });
const at = (text: string, page: number, left: number, top: number) => ({
  text,
  doc_type_kwd: 'text',
  _pdf_positions: [[page, left, left + 100, top, top + 10]],
});
const long = (word: string) => Array.from({ length: 40 }, () => word).join(' ');

describe('ManualChunker params', () => {
  it('pins the method to group and drops the token cap, whatever the canvas says', () => {
    const parsed = ManualChunkerParamsSchema.parse({ levels: LEVELS, method: 'hierarchy', chunk_token_cap: 512 });
    expect([parsed.method, parsed.chunk_token_cap]).toEqual(['group', 0]);
  });

  it('refuses missing levels as TitleChunker does', () => {
    expect(ManualChunkerParamsSchema.safeParse({}).success).toBe(false);
  });
});

describe('ManualChunker', () => {
  it('without coordinates groups exactly as TitleChunker group does', () => {
    const input: PipelinePayload = {
      name: 'a.docx',
      output_format: 'json',
      json: [{ text: '# One' }, { text: long('alpha') }, { text: '# Two' }, { text: long('beta') }],
    };
    const group = titleChunks(TitleChunkerParamsSchema.parse({ levels: LEVELS, method: 'group', chunk_token_cap: 0 }), input);
    expect(manualChunks(p, input)).toEqual(group);
    expect(group.map((c) => c.text)).toEqual([`# One\n${long('alpha')}\n`, `# Two\n${long('beta')}\n`]);
  });

  it('re-sorts records the parser emitted out of reading order before grouping', () => {
    // The parser emitted the second section (lower on the page) before the first one.
    const input: PipelinePayload = {
      name: 'a.pdf',
      output_format: 'json',
      json: [at('# Second', 1, 10, 300), at(long('second'), 1, 10, 320), at('# First', 1, 10, 5), at(long('first'), 1, 10, 20)],
    };
    expect(manualChunks(p, input).map((c) => c.text)).toEqual([`# First\n${long('first')}\n`, `# Second\n${long('second')}\n`]);
  });

  it('breaks a tie on top by left', () => {
    const input: PipelinePayload = { name: 'a.pdf', output_format: 'json', json: [at('# Right', 1, 300, 5), at('# Left', 1, 10, 5)] };
    expect(manualChunks(p, input)[0]!.text).toBe('# Left\n# Right\n');
  });

  it('orders by page first, then top, then left', () => {
    const input: PipelinePayload = {
      name: 'a.pdf',
      output_format: 'json',
      json: [at('# P2', 2, 10, 5), at(long('two'), 2, 10, 20), at('# P1', 1, 10, 50), at(long('one'), 1, 10, 60)],
    };
    expect(manualChunks(p, input).map((c) => c.text.split('\n')[0])).toEqual(['# P1', '# P2']);
  });

  it('keeps records without coordinates where they are, sorting only the runs between them', () => {
    const input: PipelinePayload = {
      name: 'a.pdf',
      output_format: 'json',
      json: [
        at('# B', 1, 10, 50),
        at(long('b'), 1, 10, 60),
        { text: '# Loose', doc_type_kwd: 'text' },
        { text: long('loose'), doc_type_kwd: 'text' },
        at('# A', 1, 10, 5),
        at(long('a'), 1, 10, 6),
      ],
    };
    expect(manualChunks(p, input).map((c) => c.text.split('\n')[0])).toEqual(['# B', '# Loose', '# A']);
  });

  it('applies no token cap', () => {
    const input: PipelinePayload = {
      name: 'a.docx',
      output_format: 'json',
      json: [{ text: '# Big' }, ...Array.from({ length: 30 }, () => ({ text: long('word') }))],
    };
    expect(manualChunks(p, input)).toHaveLength(1);
  });
});
