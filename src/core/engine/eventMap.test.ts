import { describe, expect, it } from 'vitest';
import { EVENT_DATA, eventProblems, isEvent, RUN_EVENT_NAMES, runEvent, type RunEvent } from './eventMap';
import { nestEvents } from './runEvents';
import { announcement, rejectRun } from './startEvents';

const envelope = { seq: 3, sub: 0, message_id: 'msg-1', created_at: 1_700_000_000, task_id: 'run-1' };
const component = { component_id: 'LLM:a', component_name: 'Answer', component_type: 'LLM' };

/** One event of each name, as the producers write them today. */
const samples: RunEvent[] = [
  runEvent(envelope, 'workflow_started', { inputs: { name: { value: 'Ada' } } }),
  runEvent(envelope, 'workflow_started', { inputs: {}, created_at: 1_700_000_000.5 }),
  runEvent(envelope, 'node_started', { inputs: null, created_at: 1_700_000_001, ...component, thoughts: '' }),
  runEvent(envelope, 'node_finished', { inputs: {}, outputs: { content: 'hi' }, ...component, error: null, elapsed_time: 0.2, created_at: 1_700_000_001 }),
  runEvent({ ...envelope, sub: 1 }, 'message', { content: 'hi' }),
  runEvent({ ...envelope, sub: 2 }, 'message', { content: '', start_to_think: true }),
  runEvent({ ...envelope, sub: 1 }, 'message', { content: '', audio_binary: '00ff' }),
  runEvent(envelope, 'message_end', {}),
  runEvent(envelope, 'message_end', { status: '200', reference: { chunks: {}, doc_aggs: {} }, downloads: [{ doc_id: 'd' }] }),
  runEvent(envelope, 'user_inputs', { inputs: { name: { type: 'line', optional: false, options: [], name: 'Name' } }, tips: 'Who?' }),
  runEvent(envelope, 'workflow_finished', {
    inputs: null,
    outputs: { content: 'hi' },
    elapsed_time: 1,
    created_at: 1_700_000_000,
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, calls: 1 },
  }),
  runEvent(envelope, 'workflow_finished', { outputs: {}, canceled: true }),
  runEvent(envelope, 'run_failed', { error: 'boom' }),
  runEvent(envelope, 'run_canceled', { reason: 'user asked' }),
  runEvent({ ...envelope, sub: 4 }, 'message_retry', { component_id: 'LLM:a', attempt: 2, discard_chars: 5 }),
  runEvent(envelope, 'tool_call', {
    component_id: 'Agent:a',
    round: 1,
    tool_name: 'Search',
    function: 'search_1',
    arguments: { q: 'x' },
    result: 'found',
    error: null,
    elapsed_time: 0.1,
  }),
  runEvent(envelope, 'form_reminded', { component_id: 'UserFillUp:f', attempt: 1, channel: 'webhook', delivered: true }),
  runEvent(envelope, 'form_reminded', { component_id: 'UserFillUp:f', attempt: 2, channel: 'email', delivered: false, error: 'refused' }),
  runEvent(envelope, 'form_escalated', { component_ids: ['UserFillUp:f'], waited_s: 86400, goto: ['Message:up'] }),
  runEvent(envelope, 'message_steered', { steer_id: 'req-1', content: 'Only direct flights.', component_ids: ['Agent:a'] }),
];

describe('the run-event map', () => {
  it('describes every event name, RAGFlow’s and ours', () => {
    expect(Object.keys(EVENT_DATA).sort()).toEqual([...RUN_EVENT_NAMES].sort());
    expect(new Set(samples.map((e) => e.event))).toEqual(new Set(RUN_EVENT_NAMES.filter((n) => n !== 'child_event')));
  });

  it('accepts each event as the producers write it', () => {
    expect(samples.flatMap(eventProblems)).toEqual([]);
    expect(rejectRun({ runId: 'r', messageId: 'm', inputs: null }, 'no canvas', 1_000).flatMap(eventProblems)).toEqual([]);
  });

  it('refuses an event name it does not describe', () => {
    expect(eventProblems({ ...envelope, event: 'node_progress', data: {} })).toEqual([expect.stringContaining('$.event')]);
  });

  it('refuses a field an event’s data does not describe, naming its path', () => {
    const extra = { ...envelope, event: 'message', data: { content: 'hi', attempt: 2 } };
    expect(eventProblems(extra)).toEqual([expect.stringMatching(/"message" \(3-0\) \$\.data: Unrecognized key: "attempt"/)]);
  });

  it('refuses a field of the wrong type, naming its path', () => {
    const wrong = { ...envelope, event: 'run_failed', data: { error: 42 } };
    expect(eventProblems(wrong)).toEqual([expect.stringContaining('$.data.error')]);
  });

  it('checks a child run’s wrapped event against its own name', () => {
    const target = { runId: 'parent', seq: 7, createdAt: 1, messageId: 'pm', componentId: 'InvokeCanvas:c' };
    const child = [announcement({ runId: 'child', messageId: 'cm', inputs: null }, 1_000), ...samples];
    expect(nestEvents(target, child).flatMap(eventProblems)).toEqual([]);
    const bad = nestEvents(target, [{ ...samples[0]!, data: { inputs: 'not an object' } } as unknown as RunEvent]);
    expect(bad.flatMap(eventProblems)).toEqual([expect.stringContaining('$.data.data.inputs')]);
  });

  it('narrows an event of any type to its name’s data', () => {
    const loose: { event: string; data: unknown } = { event: 'run_failed', data: { error: 'boom' } };
    expect(isEvent(loose, 'run_failed') ? loose.data.error : null).toBe('boom');
    expect(isEvent(loose, 'message')).toBe(false);
  });
});
