/**
 * Tokenizer, as RAGFlow's `rag/flow/tokenizer/tokenizer.py` behaves: `full_text` writes the
 * full-text fields (`title_tks` from the file name, `content_ltks` from the summary or the text,
 * `question_kwd` / `important_kwd` from an Extractor's `questions` / `keywords`, `chunk_order_int`);
 * `embedding` embeds the chunk's `fields` (joined; table tags removed) with the dataset's model
 * and mixes in the file name: vector = w·embed(name) + (1 − w)·embed(content), w =
 * `filename_embd_weight`, stored as `q_<dim>_vec`. Terms come from our tokenizer (words; CJK
 * characters and pairs) where RAGFlow uses its own.
 */
import type { TokenizerParams } from '../../../core/pipeline/components/Tokenizer';
import { tokenize } from '../../text/tokens';
import type { PipelineChunk, PipelinePayload, PipelineServices } from './contract';
import { splitKeywords, splitQuestions } from './fields';
import { finalizePositions } from './positions';

const EMBED_BATCH = 16;

const terms = (text: string) => tokenize(text).join(' ');

function fullText(chunk: PipelineChunk, title: string, order: number | null): PipelineChunk {
  const out: PipelineChunk = { ...chunk };
  if (order !== null) out.chunk_order_int = order;
  out.title_tks = terms(title);
  if (typeof chunk.questions === 'string' && chunk.questions) {
    out.question_kwd = splitQuestions(chunk.questions);
    out.question_tks = terms(chunk.questions);
  }
  if (typeof chunk.keywords === 'string' && chunk.keywords) {
    out.important_kwd = chunk.keywords
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    out.important_tks = terms(splitKeywords(chunk.keywords).join(' '));
  }
  const content = typeof chunk.summary === 'string' && chunk.summary ? chunk.summary : typeof chunk.text === 'string' ? chunk.text : '';
  if (content) out.content_ltks = terms(content);
  return out;
}

function embedText(chunk: PipelineChunk, fields: string[]): string {
  let text = '';
  for (const f of fields) {
    const v = chunk[f];
    if (typeof v === 'string') text += v;
    else if (Array.isArray(v)) text += v.map(String).join('\n');
  }
  return text.replace(/<\/?(table|td|caption|tr|th)( [^<>]{0,12})?>/g, ' ').trim();
}

export async function tokenizeChunks(p: TokenizerParams, input: PipelinePayload, services: PipelineServices, signal: AbortSignal): Promise<PipelinePayload> {
  const title = (input.name ?? '').replace(/\.[a-zA-Z]+$/, '');
  const format = input.output_format;
  let chunks: PipelineChunk[];
  if (format === 'markdown' || format === 'text' || format === 'html') {
    const payload = input[format];
    chunks = payload ? [{ text: payload }] : [];
  } else chunks = ((format === 'chunks' ? input.chunks : (input.json ?? input.chunks)) ?? []).filter((c) => c !== null) as PipelineChunk[];
  if (p.search_method.includes('full_text')) {
    services.progress(0.02, 'Start to tokenize.');
    chunks = chunks.map((c, i) => fullText(c, title, format === 'chunks' ? i : null));
  }
  let consumption = 0;
  if (p.search_method.includes('embedding') && chunks.length > 0) {
    services.progress(0.5, 'Start embedding inference.');
    const texts: Array<{ index: number; text: string }> = [];
    chunks.forEach((c, index) => {
      const text = embedText(c, p.fields);
      if (text) texts.push({ index, text });
    });
    if (texts.length > 0) {
      const [nameVec] = await services.embed([input.name ?? ''], signal);
      const w = p.filename_embd_weight;
      chunks = chunks.map((c) => ({ ...c }));
      for (let i = 0; i < texts.length; i += EMBED_BATCH) {
        const batch = texts.slice(i, i + EMBED_BATCH);
        const vectors = await services.embed(
          batch.map((t) => t.text),
          signal,
        );
        batch.forEach((t, j) => {
          const content = vectors[j]!;
          const mixed = nameVec && nameVec.length === content.length ? content.map((x, k) => w * nameVec[k]! + (1 - w) * x) : content;
          chunks[t.index]![`q_${mixed.length}_vec`] = mixed;
        });
        consumption += batch.reduce((n, t) => n + t.text.length, 0);
        services.progress(
          0.5 + (0.5 * Math.min(texts.length, i + EMBED_BATCH)) / texts.length,
          `${Math.min(texts.length, i + EMBED_BATCH)} / ${texts.length} embedded`,
        );
      }
    }
  }
  return {
    ...input,
    output_format: 'chunks',
    chunks: chunks.map((c) => finalizePositions(c)),
    ...(consumption ? { embedding_token_consumption: consumption } : {}),
  };
}
