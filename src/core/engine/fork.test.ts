import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { answerResult, llmRequest } from '../../../test/helpers/engineDriver';
import { forkRun, reusedComponents, savingsOf } from './fork';
import { forkPoint } from './forkPoint';
import { resumeRun, startRun, type StepResult } from './run';
import type { BatchSnapshot } from './snapshots';

const canvas = compile({
  begin: { name: 'Begin', downstream: ['LLM:a'] },
  'LLM:a': { name: 'LLM', params: { llm_id: 'm', sys_prompt: 'first' }, downstream: ['LLM:b'] },
  'LLM:b': { name: 'LLM', params: { llm_id: 'm', sys_prompt: 'second after {LLM:a@content}' }, downstream: ['Message:m'] },
  'Message:m': { name: 'Message', params: { content: ['{LLM:b@content}'] } },
});

/** Runs the canvas to its end answering every model call with `<component> says`, keeping every batch snapshot. */
function runKeeping(first: StepResult): { end: StepResult; snapshots: BatchSnapshot[] } {
  let step = first;
  const snapshots = [...(step.snapshots ?? [])];
  let now = 2_000;
  while (step.status === 'running' && step.calls.length > 0) {
    const results = step.calls.map((c) => ({ callId: c.callId, ok: true as const, value: answerResult(`${c.componentId} says`) }));
    step = resumeRun(canvas, step.state, results, (now += 1000), { snapshots: true });
    snapshots.push(...(step.snapshots ?? []));
  }
  return { end: step, snapshots };
}

describe('batch snapshots and forks', () => {
  it('keeps the state before each batch, once per component, and none when not asked', () => {
    const { end, snapshots } = runKeeping(startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'q' }, 1_000, { snapshots: true }));
    expect(end.status).toBe('finished');
    expect(snapshots.map((s) => s.components)).toEqual([['begin'], ['LLM:a'], ['LLM:b'], ['Message:m']]);
    for (const s of snapshots) expect(s.state.cursor).toEqual({ position: s.position, phase: { kind: 'next' } });
    expect(startRun(canvas, { runId: 'r2', messageId: 'm2', query: 'q' }, 1_000).snapshots).toBeUndefined();
  });

  it('forks from a snapshot: only the forked component calls, reading the replaced value; savings are the reused calls', () => {
    const { snapshots } = runKeeping(startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'q' }, 1_000, { snapshots: true }));
    const point = forkPoint(snapshots, canvas, 'r1', 'LLM:b', undefined);
    if ('problem' in point) throw new Error(point.problem.message);
    const entry = point.entry;
    const snapshot = snapshots.find((s) => s.position === entry.position)!.state;
    const fork = forkRun(canvas, snapshot, { runId: 'f1', messageId: 'fm', overrides: { 'LLM:a@content': 'EDITED' } }, 9_000);
    expect(fork.calls.map((c) => c.componentId)).toEqual(['LLM:b']);
    expect(JSON.stringify(llmRequest(fork.calls[0]!))).toContain('second after EDITED');
    expect(fork.state).toMatchObject({ runId: 'f1', messageId: 'fm', startedAt: 9_000, usage: { total_tokens: 0, calls: 0 } });
    // The API recorded workflow_started: the fork's own events start at 2.
    expect(fork.events[0]!.seq).toBe(2);
    const reused = reusedComponents(snapshot);
    expect(reused).toEqual(['begin', 'LLM:a']);
    expect(savingsOf(snapshot, reused)).toMatchObject({ calls_avoided: 1, model_calls_avoided: 1, tool_calls_avoided: 0, tokens_saved: { total_tokens: 15 } });
    // The source's snapshot is left as it was.
    expect(snapshot.outputs['LLM:a']!.content).toBe('LLM:a says');
  });

  it('finds no snapshot for a component the run never reached', () => {
    expect(forkPoint([{ position: 0, components: ['begin'] }], canvas, 'r1', 'LLM:b', undefined)).toEqual({
      problem: { path: '$.from', message: 'run r1 never reached LLM:b' },
    });
    expect(forkPoint([{ position: 0, components: ['begin'] }], canvas, 'r1', 'begin', 2)).toMatchObject({ problem: { path: '$.item' } });
  });
});
