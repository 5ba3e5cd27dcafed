/** The run timeline (api/services/runTimeline.ts), pure: bars and segments from events, call traces and queue waits. */
import { describe, expect, it } from 'vitest';
import type { CallTrace, StoredEvent } from '../../src/io/store/contract';
import { timelineOf } from '../../api/services/runTimeline';

const env = (seq: number) => ({ seq, sub: 0, message_id: 'm', created_at: 1000, task_id: 't', terminal: false });
const started = (seq: number, id: string, type: string, at: number) =>
  ({
    ...env(seq),
    event: 'node_started',
    data: { inputs: null, created_at: Math.floor(at / 1000), component_id: id, component_name: id, component_type: type },
  }) as StoredEvent;
const finished = (seq: number, id: string, type: string, at: number, ms: number) =>
  ({
    ...env(seq),
    event: 'node_finished',
    data: { inputs: {}, outputs: {}, component_id: id, component_name: id, component_type: type, error: null, elapsed_time: ms / 1000, created_at: at / 1000 },
  }) as StoredEvent;
const pause = (seq: number) => ({ ...env(seq), event: 'user_inputs', data: { inputs: {}, tips: '' } }) as StoredEvent;

describe('a run’s timeline', () => {
  it('draws the wait for a person from the end of what ran before the pause to the start of the form’s node', () => {
    const bars = timelineOf(
      [
        started(2, 'begin', 'Begin', 1_000_000),
        finished(3, 'begin', 'Begin', 1_000_000, 500),
        pause(4),
        started(5, 'ask', 'UserFillUp', 1_009_000),
        finished(6, 'ask', 'UserFillUp', 1_009_250, 0),
      ],
      [],
      [],
      2_000_000,
    );
    expect(bars.map((b) => [b.node_id, b.start, b.end, b.status])).toEqual([
      ['begin', 1_000_000, 1_000_500, 'done'],
      ['ask', 1_000_500, 1_009_250, 'done'],
    ]);
    expect(bars[1]!.segments).toEqual([{ kind: 'person', start: 1_000_500, end: 1_009_250 }]);
  });

  it('shows a pause still open as a bar of the form the workflow waits at, up to now', () => {
    const bars = timelineOf([started(2, 'begin', 'Begin', 1_000_000), finished(3, 'begin', 'Begin', 1_000_000, 500), pause(4)], [], [], 1_030_000, ['ask']);
    expect(bars[1]).toMatchObject({
      node_id: 'ask',
      status: 'waiting_for_person',
      end: null,
      segments: [{ kind: 'person', start: 1_000_500, end: 1_030_000 }],
    });
  });

  it('puts a model call’s capacity wait, attempts, retry wait and queue wait in the bar of its node', () => {
    const trace = (attempt: number, startedAt: number, wait: number, outcome: 'ok' | 'failed'): CallTrace =>
      ({
        id: `a${attempt}`,
        runId: 'r',
        nodeId: 'llm',
        activityId: '5',
        attempt,
        outcome,
        startedAt,
        capacityWaitMs: wait,
        durationMs: 100,
        error: null,
      }) as CallTrace;
    const bars = timelineOf(
      [started(2, 'llm', 'LLM', 1_000_000), finished(3, 'llm', 'LLM', 1_000_000, 5_000)],
      [trace(1, 1_000_100, 2_000, 'failed'), trace(2, 1_003_000, 0, 'ok')],
      [{ node_id: 'llm', scheduled: 1_000_010, started: 1_000_100, attempt: 1 }],
      2_000_000,
    );
    expect(bars[0]!.segments.map((g) => [g.kind, g.start, g.end])).toEqual([
      ['queue', 1_000_010, 1_000_100],
      ['capacity', 1_000_100, 1_002_100],
      ['attempt', 1_002_100, 1_002_200],
      ['retry_wait', 1_002_200, 1_003_000],
      ['attempt', 1_003_000, 1_003_100],
    ]);
  });
});
