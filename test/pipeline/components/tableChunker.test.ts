/**
 * TableChunker, in the spirit of RAGFlow's Go `chunker/table_test.go`: one chunk per row record;
 * a flat payload (a spreadsheet parsed to an HTML table) is one chunk.
 */
import { describe, expect, it } from 'vitest';
import { TableChunkerParamsSchema } from '../../../src/core/pipeline/components/TableChunker';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { tableChunks } from '../../../src/io/knowledge/pipeline/tableChunker';

const p = TableChunkerParamsSchema.parse({});

const cases: Array<{ name: string; input: PipelinePayload; want: unknown[] }> = [
  {
    name: 'one chunk per row record, unchanged',
    input: {
      name: 'a.xlsx',
      output_format: 'json',
      json: [{ text: '- name: Ada\n- role: engineer', field_map: { name: 'name_tks' } }, { text: '- name: Bob\n- role: chef' }],
    },
    want: [
      { text: '- name: Ada\n- role: engineer', doc_type_kwd: 'text', field_map: { name: 'name_tks' } },
      { text: '- name: Bob\n- role: chef', doc_type_kwd: 'text' },
    ],
  },
  {
    name: 'an HTML table payload is one text chunk',
    input: { name: 'a.xlsx', output_format: 'html', html: '<table><tr><th>a</th></tr><tr><td>1</td></tr></table>' },
    want: [{ text: '<table><tr><th>a</th></tr><tr><td>1</td></tr></table>', doc_type_kwd: 'text' }],
  },
  {
    name: 'a text payload is one chunk',
    input: { name: 'a.txt', output_format: 'text', text: 'a,b\n1,2' },
    want: [{ text: 'a,b\n1,2', doc_type_kwd: 'text' }],
  },
  {
    name: 'a Markdown payload is one chunk',
    input: { name: 'a.md', output_format: 'markdown', markdown: '| a |\n|---|\n| 1 |' },
    want: [{ text: '| a |\n|---|\n| 1 |', doc_type_kwd: 'text' }],
  },
  { name: 'an empty HTML payload gives no chunk', input: { name: 'a.xlsx', output_format: 'html', html: '' }, want: [] },
  {
    name: 'upstream chunks are read when there is no JSON',
    input: { name: 'a', output_format: 'chunks', chunks: [{ text: 'r1' }] },
    want: [{ text: 'r1', doc_type_kwd: 'text' }],
  },
  { name: 'no rows gives no chunk', input: { name: 'a', output_format: 'json', json: [] }, want: [] },
];

describe('TableChunker', () => {
  for (const c of cases) it(c.name, () => expect(tableChunks(p, c.input)).toEqual(c.want));
});
