import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { driver, timeline } from '../../../test/helpers/engineDriver';
import { carryBounded, historyFull } from './loop';
import type { CallResult, EngineCall } from './step';

const model = { llm_id: 'm@OpenAI' };

describe('the shared run loop, carried in process', () => {
  const canvas = compile({
    begin: { name: 'Begin', downstream: ['LLM:plan'] },
    'LLM:plan': { name: 'LLM', params: { ...model, sys_prompt: 'Plan.' }, downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': { name: 'UserFillUp', params: { tips: 'OK?', inputs: { instructions: { type: 'line', optional: false } } }, downstream: ['LLM:do'] },
    'LLM:do': { name: 'LLM', params: { ...model, sys_prompt: 'Do it: {UserFillUp:ask@instructions}' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:do@content}'] } },
  });

  it('waits at a pause and resumes in the same run with the inputs the pause answerer gives', async () => {
    const d = driver({ 'LLM:plan': ['search'], 'LLM:do': ['done'] });
    const seen: string[] = [];
    const { state, events } = await d.run(
      canvas,
      {},
      {
        onPause: (paused) => {
          seen.push(...paused.pause!.componentIds);
          return { inputs: { inputs: { instructions: 'go ahead' } } };
        },
      },
    );
    expect(seen).toEqual(['UserFillUp:ask']);
    expect(state.status).toBe('finished');
    expect(timeline(events)).toContain('user_inputs');
    expect(timeline(events).at(-1)).toBe('workflow_finished');
    expect(JSON.stringify(d.calls.find((c) => c.componentId === 'LLM:do')!.call.request)).toContain('Do it: go ahead');
    // Every event recorded once, in order.
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
  });

  it('returns the paused state when nobody answers the pause', async () => {
    const d = driver({ 'LLM:plan': ['search'] });
    const { state } = await d.run(canvas, {}, { onPause: () => null });
    expect(state.status).toBe('paused');
  });

  it('expires the wait when the answerer says so: the form fails with a timeout', async () => {
    const d = driver({ 'LLM:plan': ['search'] });
    const { state } = await d.run(canvas, {}, { onPause: () => ({ expired: 5 }) });
    expect(state.status).toBe('failed');
    expect(state.nodes['UserFillUp:ask']!.error).toMatch(/5 s/);
  });

  it('cancels between steps: the node in flight ends canceled, then run_canceled and workflow_finished', async () => {
    let reason: string | null = null;
    const d = driver({ 'LLM:plan': [(() => ((reason = 'stop please'), 'search')) as () => string] });
    const { state, events } = await d.run(canvas, {}, { cancelReason: () => reason });
    expect(state.status).toBe('canceled');
    expect(timeline(events).slice(-2)).toEqual(['run_canceled', 'workflow_finished']);
    expect(events.find((e) => e.event === 'run_canceled')!.data).toEqual({ reason: 'stop please' });
    expect(d.calls.map((c) => c.componentId)).toEqual(['LLM:plan']);
  });

  it('cancels a run waiting at a pause', async () => {
    let reason: string | null = null;
    const d = driver({ 'LLM:plan': ['search'] });
    const { state } = await d.run(canvas, {}, { onPause: () => ((reason = 'gave up'), null), cancelReason: () => reason });
    expect(state.status).toBe('canceled');
  });
});

describe('loop pieces', () => {
  it('carries calls with at most `limit` in flight, results in the calls’ order', async () => {
    let inFlight = 0;
    let most = 0;
    const calls = Array.from({ length: 7 }, (_, i) => ({ callId: `c${i}` }) as EngineCall);
    const results = await carryBounded(calls, 3, async (c): Promise<CallResult> => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight -= 1;
      return { callId: c.callId, ok: true, value: c.callId };
    });
    expect(most).toBe(3);
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId));
  });

  it('hands over when the host suggests it or the history passes its budget', () => {
    expect(historyFull({ suggested: false, length: 10 }, 100)).toBe(false);
    expect(historyFull({ suggested: true, length: 10 }, 100)).toBe(true);
    expect(historyFull({ suggested: false, length: 100 }, 100)).toBe(true);
  });
});
