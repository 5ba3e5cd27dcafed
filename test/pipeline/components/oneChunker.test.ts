/**
 * OneChunker, in the spirit of RAGFlow's Go `chunker/one_test.go`: the whole document becomes one
 * chunk; a single item keeps its type, image and coordinates, several are joined as text.
 */
import { describe, expect, it } from 'vitest';
import { OneChunkerParamsSchema } from '../../../src/core/pipeline/components/OneChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { oneChunks } from '../../../src/io/knowledge/pipeline/oneChunker';

const p = OneChunkerParamsSchema.parse({});
const pos = (page: number, top: number) => ({ _pdf_positions: [[page, 10, 90, top, top + 12]] });

const cases: Array<{ name: string; input: PipelinePayload; want: unknown[] }> = [
  {
    name: 'a text payload is one text chunk',
    input: { name: 'a.txt', output_format: 'text', text: 'line one\nline two' },
    want: [{ text: 'line one\nline two', doc_type_kwd: 'text' }],
  },
  {
    name: 'a Markdown payload is one chunk',
    input: { name: 'a.md', output_format: 'markdown', markdown: '# T\n\nbody' },
    want: [{ text: '# T\n\nbody', doc_type_kwd: 'text' }],
  },
  {
    name: 'an HTML payload is one chunk',
    input: { name: 'a.html', output_format: 'html', html: '<p>x</p>' },
    want: [{ text: '<p>x</p>', doc_type_kwd: 'text' }],
  },
  { name: 'a blank payload gives no chunk', input: { name: 'a.txt', output_format: 'text', text: '  \n ' }, want: [] },
  {
    name: 'several items join by line breaks into a text chunk, coordinates dropped',
    input: {
      name: 'a.pdf',
      output_format: 'json',
      json: [
        { text: 'first', doc_type_kwd: 'text', ...pos(1, 10) },
        { text: 'second', doc_type_kwd: 'table', ...pos(2, 5) },
      ],
    },
    want: [{ text: 'first\nsecond', doc_type_kwd: 'text' }],
  },
  {
    name: 'a single item keeps its type, image and coordinates',
    input: { name: 'a.png', output_format: 'json', json: [{ text: 'a cat on a mat', doc_type_kwd: 'image', img_id: 'img-1', ...pos(1, 20) }] },
    want: [{ text: 'a cat on a mat', doc_type_kwd: 'image', img_id: 'img-1', position_int: [[1, 10, 90, 20, 32]], page_num_int: [1], top_int: [20] }],
  },
  {
    name: 'several items keep the first image',
    input: { name: 'a.pdf', output_format: 'json', json: [{ text: 'a' }, { text: 'b', image: 'img-2' }, { text: 'c', img_id: 'img-3' }] },
    want: [{ text: 'a\nb\nc', doc_type_kwd: 'text', img_id: 'img-2' }],
  },
  {
    name: 'an image item without text still makes its chunk',
    input: { name: 'a.png', output_format: 'json', json: [{ text: '', img_id: 'img-9' }] },
    want: [{ text: '', doc_type_kwd: 'text', img_id: 'img-9' }],
  },
  {
    name: 'content_with_weight stands in for a missing text',
    input: { name: 'a', output_format: 'json', json: [{ content_with_weight: 'cw' }] },
    want: [{ text: 'cw', doc_type_kwd: 'text' }],
  },
  {
    name: 'coordinate tags are stripped',
    input: { name: 'a.pdf', output_format: 'json', json: [{ text: 'Hello@@1\t10.0\t90.0\t5.0\t17.0##' }, { text: 'World' }] },
    want: [{ text: 'Hello\nWorld', doc_type_kwd: 'text' }],
  },
  {
    name: 'upstream chunks are read when there is no JSON',
    input: { name: 'a', output_format: 'chunks', chunks: [{ text: 'x' }, { text: 'y' }] },
    want: [{ text: 'x\ny', doc_type_kwd: 'text' }],
  },
  { name: 'no items gives no chunk', input: { name: 'a', output_format: 'json', json: [] }, want: [] },
];

describe('OneChunker', () => {
  it('has no params and accepts any', () => {
    expect(OneChunkerParamsSchema.safeParse({ whatever: 1 }).success).toBe(true);
  });
  for (const c of cases) it(c.name, () => expect(oneChunks(p, c.input)).toEqual(c.want));
});
