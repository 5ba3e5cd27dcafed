/**
 * ManualChunker, as RAGFlow's Go `chunker/manual.go` behaves: TitleChunker's `group` method (the
 * same grouping, no token cap) after re-sorting records into physical reading order, page, then
 * top, then left, as Python's `manual.py` sorts sections. Records without coordinates act as
 * barriers: each maximal run of positioned records is sorted on its own (stable), so a document
 * with no coordinates at all (docx, text) is grouped exactly as TitleChunker's `group` does.
 */
import type { ManualChunkerParams } from '../../../core/pipeline/components/ManualChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { titleChunks, type LineRecord } from './titleChunker';

/** By the first coordinate row `[page, left, right, top, bottom]`: page, then top, then left. */
function before(a: LineRecord, b: LineRecord): number {
  const [pa, la, , ta] = a.positions[0]!;
  const [pb, lb, , tb] = b.positions[0]!;
  return pa - pb || ta - tb || la - lb;
}

/** Records in reading order, runs of positioned records sorted between coordinate-free ones. */
export function readingOrder(records: LineRecord[]): LineRecord[] {
  const out: LineRecord[] = [];
  let run: LineRecord[] = [];
  const flush = () => {
    // Array.prototype.sort is stable, as Go's sort.SliceStable.
    out.push(...run.sort(before));
    run = [];
  };
  for (const r of records) {
    if (r.positions.length > 0) run.push(r);
    else {
      flush();
      out.push(r);
    }
  }
  flush();
  return out;
}

export function manualChunks(p: ManualChunkerParams, input: PipelinePayload): PipelineChunk[] {
  return titleChunks({ ...p, method: 'group', chunk_token_cap: 0 }, input, readingOrder);
}
