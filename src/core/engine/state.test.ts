import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { startRun } from './run';
import type { RunState } from './state';
import { upgradeState, type RunStateV1 } from './stateUpgrade';

/** A v2 state written the v1 way, as continue-as-new checkpoints in older histories hold it. */
function asV1(s: RunState): RunStateV1 {
  const { cursor, calls, events, display, inputs, form, v: _v, ...same } = s;
  return {
    ...same,
    v: 1,
    idx: cursor.position,
    phase: cursor.phase,
    pending: calls.pending,
    groups: calls.groups,
    deferred: calls.deferred,
    callSeq: calls.lastId,
    seq: events.lastSeq,
    shown: display.shownText,
    partials: display.awaitingRender,
    inputsEcho: inputs.echo,
    runInputs: inputs.values,
    webhook: inputs.webhook,
    fillInputs: form.submitted,
    fillExpired: form.expired,
  };
}

describe('RunState upgrade (checkpoints in histories)', () => {
  const canvas = compile({
    begin: { name: 'Begin', downstream: ['LLM:a'] },
    'LLM:a': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'Hi.' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
  });
  const running = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q', inputs: { x: 1 } }, 1_700_000_000_000).state;

  it('regroups a v1 checkpoint into v2 with every value in its new place', () => {
    expect(running.calls.lastId).toBeGreaterThan(0);
    expect(upgradeState(JSON.parse(JSON.stringify(asV1(running))) as RunStateV1)).toEqual(running);
  });

  it('gives the oldest checkpoints (no pause, form, loop or webhook fields) their initial values', () => {
    const { pause: _p, fillInputs: _f, fillExpired: _e, loops: _l, webhook: _w, toolCalling: _t, ...oldest } = asV1(running);
    const up = upgradeState(oldest as RunStateV1);
    expect(up).toMatchObject({ v: 2, pause: null, form: { submitted: null, expired: null }, loops: {}, toolCalling: null, inputs: { webhook: null } });
  });

  it("renames a planned outcome's v1 `progress` notices to `notices`", () => {
    const v1 = asV1(running);
    v1.deferred = { 'LLM:a': { outcome: { kind: 'done', outputs: {}, progress: [{ event: 'tool_call', data: {} }] } as never } };
    expect(upgradeState(v1).calls.deferred['LLM:a']!.outcome).toEqual({ kind: 'done', outputs: {}, notices: [{ event: 'tool_call', data: {} }] });
  });

  it('leaves a v2 state as it is', () => {
    expect(upgradeState(running)).toBe(running);
  });
});
