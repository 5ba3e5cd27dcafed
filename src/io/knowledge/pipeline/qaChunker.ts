/**
 * QAChunker, as RAGFlow's Go `chunker/qa.go` behaves: question/answer pairs by the upstream
 * format (HTML: table rows, e.g. a spreadsheet; Markdown: headings; text: tab- or comma-delimited
 * lines; JSON: each item's text read as delimited lines, keeping the item's image and
 * coordinates), one chunk per pair: `问题：{q}\t回答：{a}` (`Question: {q}\tAnswer: {a}` with
 * `lang: English`), RAGFlow's "Q:"/"A:"-style prefixes removed from both, a Markdown answer
 * rendered to HTML, and the pair's source row as `top_int`.
 */
import type { QAChunkerParams } from '../../../core/pipeline/components/QAChunker';
import type { PipelineChunk, PipelinePayload } from './contract';
import { markdownToHtml } from './markdownHtml';
import { goItemText, imageOf } from './oneChunker';
import { finalizePositions, PDF_POSITIONS_KEY, positionsOf, type Position } from './positions';
import { markdownPairs, tablePairs, textPairs, type QAPair } from './qaText';

/** RAGFlow's `rmQAPrefix`: a leading 问题/Q/Question/user/… label and its separators. */
export function rmQAPrefix(text: string): string {
  return text.replace(/^(问题|答案|回答|user|assistant|Q|A|Question|Answer|问|答)[\t:： ]+/i, '').trim();
}

type Sourced = QAPair & { image?: unknown; positions?: Position[] };

function jsonPairs(items: Array<Record<string, unknown>>): Sourced[] {
  const out: Sourced[] = [];
  for (const item of items) {
    const text = goItemText(item);
    if (!text) continue;
    const image = imageOf(item);
    const positions = positionsOf(item);
    for (const p of textPairs(text)) out.push({ ...p, ...(image ? { image } : {}), ...(positions.length > 0 ? { positions } : {}) });
  }
  return out;
}

export function qaChunks(p: QAChunkerParams, input: PipelinePayload): PipelineChunk[] {
  const english = p.lang.toLowerCase() === 'english';
  const [qPrefix, aPrefix] = english ? ['Question: ', 'Answer: '] : ['问题：', '回答：'];
  let pairs: Sourced[];
  const markdown = input.output_format === 'markdown';
  if (input.output_format === 'html') pairs = tablePairs(input.html ?? '');
  else if (markdown) pairs = markdownPairs(input.markdown ?? '');
  else if (input.output_format === 'text') pairs = textPairs(input.text ?? '');
  else pairs = jsonPairs((input.json ?? []) as Array<Record<string, unknown>>);
  return pairs.map((pair) => {
    const answer = markdown ? markdownToHtml(rmQAPrefix(pair.answer)) : rmQAPrefix(pair.answer);
    const chunk: PipelineChunk = { text: `${qPrefix}${rmQAPrefix(pair.question)}\t${aPrefix}${answer}`, doc_type_kwd: pair.image ? 'image' : 'text' };
    if (pair.image) chunk.img_id = pair.image;
    if (pair.positions) return finalizePositions({ ...chunk, [PDF_POSITIONS_KEY]: pair.positions });
    if (pair.row >= 0) chunk.top_int = [pair.row];
    return chunk;
  });
}
