/**
 * How the chaos run tells a round paid twice from a call retried because its worker died: only a
 * call that arrives after its round's activity completed is a repeated finished round.
 */
import { describe, expect, it } from 'vitest';
import { tallyRounds } from '../../scripts/chaos/rounds';
import type { RecordedCall } from '../helpers/scriptedLlm';

const call = (round: number, startedAt: number): RecordedCall => ({
  body: { model: 'm', messages: Array.from({ length: round - 1 }, () => ({ role: 'tool', content: 'result' })) },
  aborted: false,
  startedAt,
  endedAt: null,
});
const roundOf = (c: RecordedCall) => 1 + c.body.messages.length;

describe('counting repeated model rounds', () => {
  it('counts nothing when each round was called once', () => {
    expect(tallyRounds([call(1, 100), call(2, 300)], roundOf, [200, 400])).toEqual({ repeatedFinished: 0, repeatedInFlight: 0 });
  });

  it('counts a call retried before its round completed as in flight at a kill', () => {
    expect(tallyRounds([call(1, 100), call(1, 150), call(2, 300)], roundOf, [200, 400])).toEqual({ repeatedFinished: 0, repeatedInFlight: 1 });
  });

  it('counts a call made after its round had completed as a repeated finished round', () => {
    expect(tallyRounds([call(1, 100), call(2, 300), call(1, 500)], roundOf, [200, 400])).toEqual({ repeatedFinished: 1, repeatedInFlight: 0 });
  });
});
