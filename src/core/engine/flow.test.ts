import { describe, expect, it } from 'vitest';
import { checkPauseInputs } from './pause';
import { compile, dsl } from '../../../test/helpers/canvasKit';
import { driver, timeline } from '../../../test/helpers/engineDriver';
import { compileCanvas } from './compile';

const model = { llm_id: 'm@OpenAI' };

describe('UserFillUp pauses', () => {
  const canvas = compile({
    begin: { name: 'Begin', downstream: ['LLM:plan'] },
    'LLM:plan': { name: 'LLM', params: { ...model, sys_prompt: 'Plan.' }, downstream: ['UserFillUp:ask'] },
    'UserFillUp:ask': {
      name: 'UserFillUp',
      params: {
        tips: 'Plan: {LLM:plan@content}. OK?',
        inputs: { instructions: { name: 'instructions', type: 'paragraph', optional: false }, count: { type: 'integer', optional: true } },
        timeout: 60,
      },
      downstream: ['LLM:do'],
    },
    'LLM:do': { name: 'LLM', params: { ...model, sys_prompt: 'Do it: {UserFillUp:ask@instructions}' }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{LLM:do@content}'] } },
  });

  it('stops at the form with user_inputs and the rendered tips, before the form component starts', async () => {
    const d = driver({ 'LLM:plan': ['search the web'] });
    const { state, events } = await d.run(canvas);
    expect(state.status).toBe('paused');
    expect(timeline(events).slice(-2)).toEqual(['node_finished:LLM:plan', 'user_inputs']);
    expect(events.at(-1)!.data).toMatchObject({ tips: 'Plan: search the web. OK?', inputs: { instructions: { type: 'paragraph', optional: false } } });
    expect(state.pause).toMatchObject({ componentIds: ['UserFillUp:ask'], seq: events.at(-1)!.seq, timeoutS: 60 });
  });

  it('resumes the paused run with the submitted inputs', async () => {
    const d = driver({ 'LLM:plan': ['search the web'], 'LLM:do': ['done as told'] });
    const paused = await d.run(canvas);
    const { state, events } = await d.submit(canvas, paused.state, { inputs: { instructions: { value: 'go ahead' }, count: '3' } });
    expect(state.status).toBe('finished');
    expect(timeline(events).slice(0, 2)).toEqual(['node_started:UserFillUp:ask', 'node_finished:UserFillUp:ask']);
    expect(state.outputs['UserFillUp:ask']).toMatchObject({ instructions: 'go ahead', count: 3, tips: 'Plan: search the web. OK?' });
    const doCall = d.calls.find((c) => c.componentId === 'LLM:do')!;
    expect(JSON.stringify(doCall.call.request)).toContain('Do it: go ahead');
    expect(state.outputs['Message:m']!.content).toBe('done as told');
  });

  it('refuses a bad submission naming each bad field, and the run stays paused', async () => {
    const d = driver({ 'LLM:plan': ['x'] });
    const paused = await d.run(canvas);
    const check = checkPauseInputs(paused.state, { count: 'many', colour: 'red' });
    expect(check).toEqual({
      ok: false,
      problems: [
        { field: 'colour', message: 'is not a field of this form (fields: instructions, count)' },
        { field: 'instructions', message: 'is required' },
        { field: 'count', message: 'must be a number, got "many"' },
      ],
    });
    await expect(d.submit(canvas, paused.state, { inputs: {} })).rejects.toThrow(/instructions: is required/);
    expect(paused.state.status).toBe('paused');
  });

  it('takes the exception branch when the wait times out', async () => {
    const withGoto = compile({
      begin: { name: 'Begin', downstream: ['UserFillUp:ask'] },
      'UserFillUp:ask': {
        name: 'UserFillUp',
        params: { inputs: { ok: { type: 'boolean' } }, timeout: 1, exception_method: 'goto', exception_goto: ['Message:late'] },
        downstream: ['Message:yes'],
      },
      'Message:yes': { name: 'Message', params: { content: ['thanks'] } },
      'Message:late': { name: 'Message', params: { content: ['nobody answered'] } },
    });
    const d = driver({});
    const paused = await d.run(withGoto);
    const { state } = await d.expire(withGoto, paused.state);
    expect(state.status).toBe('finished');
    expect(state.display.shownText).toBe('nobody answered');
    expect(state.nodes['UserFillUp:ask']!.error).toMatch(/No input arrived within 30 s/);
  });

  it('fails the run with a clear error when the wait times out without exception handling', async () => {
    const d = driver({ 'LLM:plan': ['x'] });
    const paused = await d.run(canvas);
    const { state } = await d.expire(canvas, paused.state);
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/No input arrived within 30 s/);
  });

  it('pauses again on each pass of a loop', async () => {
    const looped = compile({
      begin: { name: 'Begin', downstream: ['Loop:l'] },
      'Loop:l': { name: 'Loop', params: { maximum_loop_count: 2 }, downstream: ['Message:end'] },
      'LoopItem:i': { name: 'LoopItem', parent_id: 'Loop:l', downstream: ['UserFillUp:q'] },
      'UserFillUp:q': { name: 'UserFillUp', parent_id: 'Loop:l', params: { inputs: { answer: { type: 'line' } } } },
      'Message:end': { name: 'Message', params: { content: ['bye'] } },
    });
    const d = driver({});
    const first = await d.run(looped);
    expect(first.state.status).toBe('paused');
    const second = await d.submit(looped, first.state, { inputs: { answer: 'one' } });
    expect(second.state.status).toBe('paused');
    const third = await d.submit(looped, second.state, { inputs: { answer: 'two' } });
    expect(third.state.status).toBe('finished');
    expect(third.state.outputs['UserFillUp:q']).toMatchObject({ answer: 'two' });
  });
});

describe('Iteration', () => {
  it('runs the body once per item with item and index, collects outputs, then goes downstream', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': {
        name: 'Iteration',
        params: { items_ref: 'sys.query', outputs: { answers: { ref: 'LLM:body@content', type: 'Array<string>' } } },
        downstream: ['Message:m'],
      },
      'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it', downstream: ['LLM:body'] },
      'LLM:body': { name: 'LLM', parent_id: 'Iteration:it', params: { ...model, sys_prompt: 'Item {IterationItem:item@index}: {IterationItem:item@item}' } },
      'Message:m': { name: 'Message', params: { content: ['{Iteration:it@answers}'] } },
    });
    const d = driver({ 'LLM:body': ['A', 'B', 'C'] });
    const { state, events } = await d.run(canvas, { query: ['x', 'y', 'z'] });
    expect(state.status).toBe('finished');
    expect(d.calls.map((c) => JSON.stringify(c.call.request).match(/Item \d: [xyz]/)![0])).toEqual(['Item 0: x', 'Item 1: y', 'Item 2: z']);
    expect(state.outputs['Iteration:it']!.answers).toEqual(['A', 'B', 'C']);
    expect(state.outputs['Message:m']!.content).toBe('["A", "B", "C"]');
    const t = timeline(events);
    // The Iteration finishes after its last pass, before its downstream starts.
    expect(t.indexOf('node_finished:Iteration:it')).toBeGreaterThan(t.lastIndexOf('node_finished:LLM:body'));
    expect(t.indexOf('node_finished:Iteration:it')).toBeLessThan(t.indexOf('node_started:Message:m'));
    expect(t.filter((e) => e === 'node_started:IterationItem:item')).toHaveLength(4);
  });

  it('fails clearly when items_ref is not a list', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Iteration:it'] },
      'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query' } },
      'IterationItem:item': { name: 'IterationItem', parent_id: 'Iteration:it' },
    });
    const { state } = await driver({}).run(canvas, { query: 'not a list' });
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/sys\.query must be an array/);
  });

  it('rejects a loop without its item at compile time', () => {
    const r = compileCanvas(
      dsl({ begin: { name: 'Begin', downstream: ['Iteration:it'] }, 'Iteration:it': { name: 'Iteration', params: { items_ref: 'sys.query' } } }),
    );
    expect(r.ok ? [] : r.problems.map((p) => p.message)).toContain(
      'Iteration "Iteration:it" needs exactly one IterationItem with parent_id "Iteration:it", found 0',
    );
  });
});

describe('Loop', () => {
  const counter = (extra: Record<string, unknown>, body: Record<string, Parameters<typeof compile>[0][string]> = {}) =>
    compile({
      begin: { name: 'Begin', downstream: ['Loop:l'] },
      'Loop:l': {
        name: 'Loop',
        params: { loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }], maximum_loop_count: 10, ...extra },
        downstream: ['Message:m'],
      },
      'LoopItem:i': { name: 'LoopItem', parent_id: 'Loop:l', downstream: ['VariableAssigner:inc'] },
      'VariableAssigner:inc': {
        name: 'VariableAssigner',
        parent_id: 'Loop:l',
        params: { variables: [{ variable: 'Loop:l@n', operator: '+=', parameter: 1 }] },
      },
      ...body,
      'Message:m': { name: 'Message', params: { content: ['n = {Loop:l@n}'] } },
    });

  it('repeats the body until the termination condition holds', async () => {
    const { state } = await driver({}).run(
      counter({ loop_termination_condition: [{ variable: 'Loop:l@n', operator: '≥', input_mode: 'constant', value: 3 }] }),
    );
    expect(state.status).toBe('finished');
    expect(state.outputs['Message:m']!.content).toBe('n = 3');
  });

  it('stops after maximum_loop_count passes', async () => {
    const { state } = await driver({}).run(counter({ maximum_loop_count: 4 }));
    expect(state.outputs['Message:m']!.content).toBe('n = 4');
  });

  it('leaves the loop at an ExitLoop', async () => {
    const canvas = counter(
      {},
      {
        'VariableAssigner:inc': {
          name: 'VariableAssigner',
          parent_id: 'Loop:l',
          params: { variables: [{ variable: 'Loop:l@n', operator: '+=', parameter: 1 }] },
          downstream: ['Switch:s'],
        },
        'Switch:s': {
          name: 'Switch',
          parent_id: 'Loop:l',
          params: { conditions: [{ items: [{ cpn_id: 'Loop:l@n', operator: '=', value: 2 }], to: ['ExitLoop:x'] }], end_cpn_ids: ['LoopItem:i'] },
          downstream: ['ExitLoop:x', 'LoopItem:i'],
        },
        'ExitLoop:x': { name: 'ExitLoop', parent_id: 'Loop:l' },
      },
    );
    const { state, events } = await driver({}).run(canvas);
    expect(state.status).toBe('finished');
    expect(state.outputs['Message:m']!.content).toBe('n = 2');
    expect(timeline(events)).toContain('node_finished:Loop:l');
  });
});
