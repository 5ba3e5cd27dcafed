/**
 * A pipeline's last payload as the store's chunks: RAGFlow's chunk fields mapped onto ours
 * (`important_kwd` → important keywords, `question_kwd` → questions, a Tokenizer's `q_<dim>_vec`
 * → the embedding), everything else the pipeline wrote (summary, metadata…) kept as `extra`.
 * Chunks without a vector (a pipeline with no Tokenizer) are embedded with the dataset's model.
 */
import type { PipelineChunk } from '../src/io/knowledge/pipeline/contract';
import { splitKeywords, splitQuestions, vectorOf } from '../src/io/knowledge/pipeline/fields';
import { countTokens } from '../src/io/text/tokens';
import type { NewChunk } from '../src/io/store/knowledgeTypes';

// Search-side copies of the text (RAGFlow's tokenized fields) and vectors: our index derives its own.
const DERIVED = /(_vec|_tks|_ltks)$/;
const MAPPED = new Set(['text', 'embedding', 'important_kwd', 'question_kwd']);

/** The store's form of a pipeline chunk at `position` (its id unique to this generation). */
export function toNewChunk(documentId: string, generation: string, position: number, c: PipelineChunk): NewChunk & { hasVector: boolean } {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!MAPPED.has(k) && !DERIVED.test(k)) extra[k] = v;
  // A Tokenizer maps `keywords`/`questions` to RAGFlow's `important_kwd`/`question_kwd`; without one, the Extractor's fields count.
  const importantKeywords = splitKeywords(c.important_kwd ?? c.keywords);
  const questions = splitQuestions(c.question_kwd ?? c.questions);
  const vector = vectorOf(c);
  const text = typeof c.text === 'string' ? c.text : String(c.text ?? '');
  return {
    id: `${documentId}-${generation}-${position}`,
    content: text,
    section: typeof c.section === 'string' ? c.section : typeof c.title === 'string' ? c.title : '',
    position,
    tokens: countTokens(text),
    embedding: vector ?? [],
    hasVector: vector !== null,
    importantKeywords,
    questions,
    extra,
  };
}
