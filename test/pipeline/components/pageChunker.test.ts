/**
 * PageChunker, in the spirit of RAGFlow's Go `chunker/page_test.go`: each slide or page record is
 * its own chunk, passed through with its fields.
 */
import { describe, expect, it } from 'vitest';
import { PageChunkerParamsSchema } from '../../../src/core/pipeline/components/PageChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { pageChunks } from '../../../src/io/knowledge/pipeline/pageChunker';

const p = PageChunkerParamsSchema.parse({});

const cases: Array<{ name: string; input: PipelinePayload; want: unknown[] }> = [
  {
    name: 'one chunk per slide, in order, with the slide number kept',
    input: {
      name: 'deck.pptx',
      output_format: 'json',
      json: [
        { text: 'Intro', slide_number: 1 },
        { text: 'Roadmap', slide_number: 2 },
        { text: 'Thanks', slide_number: 3 },
      ],
    },
    want: [
      { text: 'Intro', doc_type_kwd: 'text', slide_number: 1 },
      { text: 'Roadmap', doc_type_kwd: 'text', slide_number: 2 },
      { text: 'Thanks', doc_type_kwd: 'text', slide_number: 3 },
    ],
  },
  {
    name: 'a PDF page keeps its coordinates as the indexed position fields',
    input: { name: 'a.pdf', output_format: 'json', json: [{ text: 'page one', doc_type_kwd: 'text', _pdf_positions: [[1, 0, 100, 4, 20]] }] },
    want: [{ text: 'page one', doc_type_kwd: 'text', position_int: [[1, 0, 100, 4, 20]], page_num_int: [1], top_int: [4] }],
  },
  {
    name: 'a table record keeps its type',
    input: { name: 'a.pdf', output_format: 'json', json: [{ text: '<table></table>', doc_type_kwd: 'table' }] },
    want: [{ text: '<table></table>', doc_type_kwd: 'table' }],
  },
  {
    name: 'upstream chunks are read when there is no JSON',
    input: { name: 'a', output_format: 'chunks', chunks: [{ text: 'p1' }, { text: 'p2' }] },
    want: [
      { text: 'p1', doc_type_kwd: 'text' },
      { text: 'p2', doc_type_kwd: 'text' },
    ],
  },
  { name: 'a flat text payload has no pages and gives no chunk', input: { name: 'a.txt', output_format: 'text', text: 'hello' }, want: [] },
  { name: 'no records gives no chunk', input: { name: 'a.pptx', output_format: 'json', json: [] }, want: [] },
];

describe('PageChunker', () => {
  for (const c of cases) it(c.name, () => expect(pageChunks(p, c.input)).toEqual(c.want));
});
