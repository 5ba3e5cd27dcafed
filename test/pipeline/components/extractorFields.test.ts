/**
 * The Extractor's model requests (pure) and how the fields it writes read once stored, as
 * RAGFlow's task executor reads them.
 */
import { describe, expect, it } from 'vitest';
import { ExtractorParamsSchema } from '../../../src/core/pipeline/components/Extractor';
import type { PipelinePayload } from '../../../src/io/knowledge/pipeline/contract';
import { answerText, extractorItemCount, extractorRequest, listKey } from '../../../src/io/knowledge/pipeline/extractor';
import { documentMetadata, mergeMetadata, metadataOf, splitKeywords, splitQuestions } from '../../../src/io/knowledge/pipeline/fields';

const params = (p: Record<string, unknown>) => ExtractorParamsSchema.parse({ field_name: 'summary', ...p });
const input: PipelinePayload = { name: 'a.md', output_format: 'chunks', chunks: [{ text: 'first chunk' }, { text: 'second chunk' }], markdown: '# whole' };

describe('Extractor requests', () => {
  it('iterates over the referenced list, the chunk text standing in for the reference', () => {
    const p = params({ sys_prompt: 'Summarize.', prompts: [{ role: 'user', content: 'Text:\n{TokenChunker:A@chunks}' }] });
    expect(listKey(p, input)).toBe('chunks');
    expect(extractorItemCount(p, input)).toBe(2);
    expect(extractorRequest(p, input, 'chunks', 'second chunk')).toEqual({ llmId: '', system: 'Summarize.', user: 'Text:\nsecond chunk' });
  });

  it('asks once, with the referenced values, when nothing referenced is a list', () => {
    const p = params({ prompts: [{ role: 'user', content: 'Doc: {Parser:P@markdown}' }] });
    expect(extractorItemCount(p, input)).toBe(0);
    expect(extractorRequest(p, input, null, '').user).toBe('Doc: # whole');
  });

  it('sends only the generation settings the component enables, and every prompt message', () => {
    const p = params({
      prompts: [
        { role: 'user', content: 'Example: {TokenChunker:A@chunks}' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'Go.' },
      ],
      temperature: 0.1,
      temperatureEnabled: true,
      max_tokens: 256,
      maxTokensEnabled: false,
    });
    const req = extractorRequest(p, input, 'chunks', 'first chunk');
    expect(req).toMatchObject({ temperature: 0.1, user: 'Go.' });
    expect(req.maxTokens).toBeUndefined();
    expect(req.messages).toEqual([
      { role: 'user', content: 'Example: first chunk' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'Go.' },
    ]);
  });

  it('keeps the answer without its thinking', () => {
    expect(answerText('<think>hmm</think>\n The answer.')).toBe('The answer.');
  });

  it('refuses an empty field_name and the unsupported "toc"', () => {
    expect(ExtractorParamsSchema.safeParse({ field_name: ' ' }).success).toBe(false);
    expect(ExtractorParamsSchema.safeParse({ field_name: 'toc' }).error?.issues[0]?.path).toEqual(['field_name']);
  });
});

describe('extracted fields once stored', () => {
  it('splits keywords at the separators RAGFlow accepts and questions per line', () => {
    expect(splitKeywords('alpha, beta，gamma;delta；epsilon、zeta\neta')).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']);
    expect(splitQuestions('Why?\n\n How? ')).toEqual(['Why?', 'How?']);
  });

  it('reads metadata as JSON, repairing fences and damage, and ignores answers that are not objects', () => {
    expect(metadataOf({ text: '', metadata: '```json\n{"a": "x",}\n```' })).toEqual({ a: 'x' });
    expect(metadataOf({ text: '', metadata: 'no metadata here' })).toBeNull();
    expect(metadataOf({ text: '', metadata: '[1, 2]' })).toBeNull();
  });

  it('merges metadata over chunks: strings collect without repeats, other values replace', () => {
    const chunks = [
      { text: '', metadata: '{"author": "Ada", "year": 1843}' },
      { text: '', metadata: '{"author": ["Ada", "Charles"], "year": 1844}' },
    ];
    expect(documentMetadata(chunks)).toEqual({ author: ['Ada', 'Charles'], year: 1844 });
    expect(mergeMetadata({ tag: 'x' }, { tag: [] })).toEqual({ tag: 'x' });
  });
});
