/**
 * The text an OpenAI stream sends around a retried model call (api/services/openAiStream.ts): OpenAI
 * chunks cannot take text back, so what the client holds of a stream slot is not sent again.
 */
import { describe, expect, it } from 'vitest';
import { RetryJoin } from '../../api/services/openAiStream';
import type { StoredEvent } from '../../src/io/store/contract';

const base = { message_id: 'm', created_at: 1, task_id: 'r', terminal: false };
const piece = (seq: number, sub: number, content: string) => ({ ...base, seq, sub, event: 'message', data: { content } }) as unknown as StoredEvent;
const retry = (seq: number, sub: number, discard: number) =>
  ({ ...base, seq, sub, event: 'message_retry', data: { component_id: 'LLM:a', attempt: 2, discard_chars: discard } }) as unknown as StoredEvent;

const send = (join: RetryJoin, events: StoredEvent[]) => events.map((e) => join.text(e)).join('');

describe('a retried answer on an OpenAI stream', () => {
  it('sends only what goes past the text the client holds when the retry says the same', () => {
    const join = new RetryJoin();
    const first = send(join, [piece(5, 1, 'w0 '), piece(5, 2, 'w1 ')]);
    const after = send(join, [retry(5, 3, 6), piece(5, 4, 'w0 '), piece(5, 5, 'w1 w'), piece(5, 6, '2 ')]);
    expect(first + after).toBe('w0 w1 w2 ');
  });

  it('continues from where a differently worded retry parts from what was sent', () => {
    const join = new RetryJoin();
    const first = send(join, [piece(5, 1, 'Hello there')]);
    expect(send(join, [retry(5, 2, 11), piece(5, 3, 'Hello, friend')])).toBe(', friend');
    expect(first).toBe('Hello there');
  });

  it('leaves other slots and engine messages alone', () => {
    const join = new RetryJoin();
    send(join, [piece(5, 1, 'abc'), retry(5, 2, 3)]);
    expect(join.text(piece(9, 1, 'abc'))).toBe('abc');
    expect(join.text(piece(10, 0, 'abc'))).toBe('abc');
  });
});
