import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { answerResult, llmRequest } from '../../../test/helpers/engineDriver';
import type { CompiledCanvas } from './compile';
import { forkRun, passSavings, reusedComponents } from './fork';
import { forkPoint, passEnd, ranInPass, reusedItemValues, type ForkPoint } from './forkPoint';
import { continueInProcess } from './inProcess';
import { resumeRun, startRun, type StepResult } from './run';
import type { BatchSnapshot } from './snapshots';
import type { CallResult, EngineCall } from './step';

/** Begin → Iteration over sys.query (each item: one model call labelling it) → Message of the labels. */
function iterationCanvas(prompt: string, maxConcurrency = 0): CompiledCanvas {
  return compile({
    begin: { name: 'Begin', downstream: ['Iteration:it'] },
    'Iteration:it': {
      name: 'Iteration',
      params: { items_ref: 'sys.query', max_concurrency: maxConcurrency, outputs: { labels: { ref: 'LLM:label@content', type: 'Array<string>' } } },
      downstream: ['Message:m'],
    },
    'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:label'] },
    'LLM:label': { name: 'LLM', parent_id: 'Iteration:it', params: { llm_id: 'm@OpenAI', sys_prompt: `${prompt} {IterationItem:item@item}.` } },
    'Message:m': { name: 'Message', params: { content: ['{Iteration:it@labels}'] } },
  });
}

/** Begin → Loop of 3 passes (each: add 1 to n, then a model call reading n) → Message of n. */
const loopCanvas = compile({
  begin: { name: 'Begin', downstream: ['Loop:l'] },
  'Loop:l': {
    name: 'Loop',
    params: { loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }], maximum_loop_count: 3 },
    downstream: ['Message:m'],
  },
  'LoopItem:i': { name: 'LoopItem', parent_id: 'Loop:l', downstream: ['VariableAssigner:inc'] },
  'VariableAssigner:inc': {
    name: 'VariableAssigner',
    parent_id: 'Loop:l',
    params: { variables: [{ variable: 'Loop:l@n', operator: '+=', parameter: 1 }] },
    downstream: ['LLM:step'],
  },
  'LLM:step': { name: 'LLM', parent_id: 'Loop:l', params: { llm_id: 'm@OpenAI', sys_prompt: 'Pass {Loop:l@n}.' } },
  'Message:m': { name: 'Message', params: { content: ['n = {Loop:l@n}'] } },
});

/** The model: answers `<tag>:<system prompt>`, and lists the prompts it saw. */
function model(tag: string) {
  const prompts: string[] = [];
  const answer = (c: EngineCall): CallResult => {
    const prompt = String(llmRequest(c).messages[0]?.content ?? '');
    prompts.push(prompt);
    return { callId: c.callId, ok: true, value: answerResult(`${tag}:${prompt}`) };
  };
  return { prompts, answer, exec: (c: EngineCall) => Promise.resolve(answer(c)) };
}

/** Runs one step at a time to the end, keeping every batch snapshot. */
function runKeeping(canvas: CompiledCanvas, first: StepResult, answer: (c: EngineCall) => CallResult) {
  let step = first;
  const snapshots: BatchSnapshot[] = [...(step.snapshots ?? [])];
  let now = 2_000;
  while (step.status === 'running' && step.calls.length > 0) {
    step = resumeRun(canvas, step.state, step.calls.map(answer), (now += 1000), { snapshots: true });
    snapshots.push(...(step.snapshots ?? []));
  }
  return { end: step, snapshots };
}

function pointOf(p: ForkPoint | { problem: unknown }): ForkPoint {
  if ('problem' in p) throw new Error(JSON.stringify(p.problem));
  return p;
}

const stateAt = (snapshots: BatchSnapshot[], position: number) => snapshots.find((s) => s.position === position)!.state;
const fork = { runId: 'f1', messageId: 'fm', overrides: {} };

describe('a fork inside an Iteration or Loop item restarts that item', () => {
  it('reuses the earlier items of a sequential Iteration, restarts the forked one, runs the later ones', () => {
    const source = model('v1');
    const canvas = iterationCanvas('Label');
    const { end, snapshots } = runKeeping(
      canvas,
      startRun(canvas, { runId: 'r1', messageId: 'm1', query: ['a', 'b', 'c'] }, 1_000, { snapshots: true }),
      source.answer,
    );
    expect(end.state.outputs['Iteration:it']!.labels).toEqual(['v1:Label a.', 'v1:Label b.', 'v1:Label c.']);

    const point = pointOf(forkPoint(snapshots, canvas, 'r1', 'LLM:label', 1));
    expect(point).toMatchObject({ kind: 'pass', loopId: 'Iteration:it', item: 1 });
    const edited = iterationCanvas('Relabel');
    const again = model('v2');
    const { end: forked } = runKeeping(edited, forkRun(edited, stateAt(snapshots, point.entry.position), fork, 9_000, { snapshots: true }), again.answer);
    expect(again.prompts).toEqual(['Relabel b.', 'Relabel c.']);
    expect(forked.state.outputs['Iteration:it']!.labels).toEqual(['v1:Label a.', 'v2:Relabel b.', 'v2:Relabel c.']);

    // Item 0's call is what the fork saved; the pass states are read from the source's snapshots.
    const states = point.kind === 'pass' ? point.passes.map((p) => stateAt(snapshots, p.position)) : [];
    const saved = passSavings(canvas, 'Iteration:it', point.kind === 'pass' ? point.passes : [], states, reusedComponents(states.at(-1)!));
    expect(saved).toMatchObject({ calls_avoided: 1, model_calls_avoided: 1, tokens_saved: { total_tokens: 15 } });
    const item2 = pointOf(forkPoint(snapshots, canvas, 'r1', 'LLM:label', 2));
    const states2 = item2.kind === 'pass' ? item2.passes.map((p) => stateAt(snapshots, p.position)) : [];
    expect(passSavings(canvas, 'Iteration:it', item2.kind === 'pass' ? item2.passes : [], states2, reusedComponents(states2.at(-1)!)).calls_avoided).toBe(2);
  });

  it('restarts a Loop pass with the loop variables as they stood before it', () => {
    const source = model('v1');
    const { end, snapshots } = runKeeping(
      loopCanvas,
      startRun(loopCanvas, { runId: 'r1', messageId: 'm1', query: 'q' }, 1_000, { snapshots: true }),
      source.answer,
    );
    expect(source.prompts).toEqual(['Pass 1.', 'Pass 2.', 'Pass 3.']);
    expect(end.state.outputs['Loop:l']!.n).toBe(3);

    const point = pointOf(forkPoint(snapshots, loopCanvas, 'r1', 'LLM:step', 2));
    const again = model('v2');
    const { end: forked } = runKeeping(loopCanvas, forkRun(loopCanvas, stateAt(snapshots, point.entry.position), fork, 9_000), again.answer);
    expect(again.prompts).toEqual(['Pass 3.']);
    expect(forked.state.status).toBe('finished');
    expect(forked.state.outputs['Loop:l']!.n).toBe(3);
  });

  it('tells which items `from` ran in, and refuses an item the loop never started', () => {
    const source = model('v1');
    const { snapshots } = runKeeping(loopCanvas, startRun(loopCanvas, { runId: 'r1', messageId: 'm1', query: 'q' }, 1_000, { snapshots: true }), source.answer);
    const ran = (item: number) => {
      const p = pointOf(forkPoint(snapshots, loopCanvas, 'r1', 'LLM:step', item));
      const end = p.kind === 'pass' ? passEnd(snapshots, loopCanvas, p) : null;
      return end ? ranInPass(stateAt(snapshots, end.position), p.entry, end, 'LLM:step') : null;
    };
    expect([0, 1, 2, 3].map(ran)).toEqual([true, true, true, false]);
    expect(forkPoint(snapshots, loopCanvas, 'r1', 'LLM:step', 4)).toEqual({
      problem: { path: '$.item', message: 'run r1 started 4 pass(es) of Loop:l: item must be 0 to 3' },
    });
    expect(pointOf(forkPoint(snapshots, loopCanvas, 'r1', 'LLM:step', 'last'))).toMatchObject({ item: 3 });
  });

  it('answers the earlier items of a parallel Iteration with the source’s values and runs the rest', async () => {
    const source = model('v1');
    const canvas = iterationCanvas('Label', 2);
    const first = startRun(canvas, { runId: 'r1', messageId: 'm1', query: ['a', 'b', 'c'], parallelItems: true }, 1_000, { snapshots: true });
    const { state } = await continueInProcess(canvas, first, source.exec);
    expect(state.outputs['Iteration:it']!.labels).toEqual(['v1:Label a.', 'v1:Label b.', 'v1:Label c.']);

    const point = pointOf(forkPoint(first.snapshots!, canvas, 'r1', 'LLM:label', 1));
    expect(point).toMatchObject({ kind: 'items', iterationId: 'Iteration:it', item: 1 });
    const values = reusedItemValues(state, 'Iteration:it', 1);
    expect(values).toEqual([{ labels: 'v1:Label a.' }]);
    const edited = iterationCanvas('Relabel', 2);
    const again = model('v2');
    const forkStart = forkRun(edited, stateAt(first.snapshots!, point.entry.position), fork, 9_000);
    const forked = await continueInProcess(edited, forkStart, again.exec, {
      reuseItems: { iterationId: 'Iteration:it', values: values as Array<Record<string, unknown>> },
    });
    expect(again.prompts.sort()).toEqual(['Relabel b.', 'Relabel c.']);
    expect(forked.state.outputs['Iteration:it']!.labels).toEqual(['v1:Label a.', 'v2:Relabel b.', 'v2:Relabel c.']);
    expect(reusedItemValues(state, 'Iteration:it', 3)).toEqual({
      problem: { path: '$.item', message: 'Iteration:it went over 3 item(s): item must be 0 to 2' },
    });
  });
});
