/**
 * TableChunker, as RAGFlow's Go `chunker/table.go` behaves: a row-structured payload (the JSON
 * items, else the upstream chunks) gives one chunk per record, passed through unchanged; a flat
 * text, Markdown or HTML payload (a spreadsheet parsed to an HTML table) is one text chunk.
 */
import type { TableChunkerParams } from '../../../core/pipeline/components/TableChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { flatPayloadChunk, structuredItems } from './oneChunker';
import { recordChunk } from './pageChunker';

export function tableChunks(_p: TableChunkerParams, input: PipelinePayload): PipelineChunk[] {
  return flatPayloadChunk(input) ?? structuredItems(input).map(recordChunk);
}
