import { describe, expect, it } from 'vitest';
import { ThinkSplitter, type StreamPiece } from './thinkSplitter';

function feed(chunks: string[]): { pieces: StreamPiece[]; s: ThinkSplitter } {
  const s = new ThinkSplitter();
  const pieces = [...chunks.flatMap((c) => s.contentDelta(c)), ...s.end()];
  return { pieces, s };
}

describe('thinking in a stream', () => {
  it('separates <think> blocks, even with tags cut across chunks', () => {
    const { pieces, s } = feed(['<thi', 'nk>plan it', '</th', 'ink>The answer']);
    expect(pieces).toEqual([
      { kind: 'think-start' },
      { kind: 'text', text: 'plan it', thinking: true },
      { kind: 'think-end' },
      { kind: 'text', text: 'The answer', thinking: false },
    ]);
    expect(s.answer).toBe('The answer');
    expect(s.reasoning).toBe('plan it');
  });

  it('wraps reasoning_content in start/end markers before the answer', () => {
    const s = new ThinkSplitter();
    const pieces = [...s.reasoningDelta('hmm'), ...s.reasoningDelta(' ok'), ...s.contentDelta('Yes'), ...s.end()];
    expect(pieces.map((p) => p.kind)).toEqual(['think-start', 'text', 'text', 'think-end', 'text']);
    expect(s.answer).toBe('Yes');
  });

  it('passes text with a lone "<" through unchanged', () => {
    expect(feed(['a < b', ' and <', 'x>']).s.answer).toBe('a < b and <x>');
  });
});
