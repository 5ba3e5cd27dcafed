import { describe, expect, it } from 'vitest';
import { compile } from '../../../test/helpers/canvasKit';
import { driver, llmRequest, timeline } from '../../../test/helpers/engineDriver';
import { cancelRun, resumeRun, startRun } from './run';
import { dataOf, nodeFinished } from '../../../test/helpers/runEvents';

const llm = (downstream: string[], params: Record<string, unknown> = {}) => ({
  name: 'LLM',
  params: { llm_id: 'm@OpenAI', sys_prompt: 'be brief', ...params },
  downstream,
});
const message = (content: string, downstream: string[] = []) => ({ name: 'Message', params: { content: [content] }, downstream });

describe('path advancement', () => {
  it('runs begin → LLM → Message and streams the answer into the Message', async () => {
    const canvas = compile({ begin: { name: 'Begin', downstream: ['LLM:a'] }, 'LLM:a': llm(['Message:m']), 'Message:m': message('Answer: {LLM:a@content}!') });
    const d = driver({ 'LLM:a': ['forty-two'] });
    const { events, state } = await d.run(canvas);
    expect(timeline(events)).toEqual([
      'workflow_started',
      'node_started:begin',
      'node_finished:begin',
      'node_started:LLM:a',
      'node_started:Message:m',
      'message:Answer: ',
      'message:!',
      'message_end',
      'node_finished:LLM:a',
      'node_finished:Message:m',
      'workflow_finished',
    ]);
    // The answer streams into the slot reserved between the two literal parts.
    const stream = llmRequest(d.calls[0]!).stream!;
    const literal = events.filter((e) => e.event === 'message');
    expect(stream.seq).toBeGreaterThan(literal[0]!.seq);
    expect(stream.seq).toBeLessThan(literal[1]!.seq);
    expect(state.outputs['Message:m']!.content).toBe('Answer: forty-two!');
    expect(dataOf(events.at(-1), 'workflow_finished').outputs).toMatchObject({ content: 'Answer: forty-two!' });
    expect(state.history.at(-1)).toEqual(['assistant', 'Answer: forty-two!']);
  });

  it('sends the system prompt, the rendered user prompt and only enabled generation settings', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': llm(['Message:m'], { prompts: [{ role: 'user', content: 'Q: {sys.query}' }], temperature: 0.3, temperatureEnabled: true, top_p: 0.5 }),
      'Message:m': message('{LLM:a@content}'),
    });
    const d = driver({ 'LLM:a': ['ok'] });
    await d.run(canvas, { query: 'why?' });
    const req = llmRequest(d.calls[0]!);
    expect(req.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'Q: why?' },
    ]);
    expect(req.gen).toEqual({ temperature: 0.3 });
  });

  it('runs a batch of independent components together and joins them after', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a', 'LLM:b'] },
      'LLM:a': llm(['Message:m']),
      'LLM:b': llm(['Message:m']),
      'Message:m': message('{LLM:a@content} + {LLM:b@content}'),
    });
    const d = driver({ 'LLM:a': ['A'], 'LLM:b': ['B'] });
    const { state } = await d.run(canvas);
    expect(state.path).toEqual(['begin', 'LLM:a', 'LLM:b', 'Message:m']);
    expect(state.outputs['Message:m']!.content).toBe('A + B');
  });

  it('defers a component whose input is not on the path yet and runs it once it is', async () => {
    // C reads X, which is one hop further on the other branch: C waits for X.
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a', 'LLM:b'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', prompts: [{ role: 'user', content: 'a' }] }, downstream: ['Message:c'] },
      'LLM:b': { name: 'LLM', params: { llm_id: 'm', prompts: [{ role: 'user', content: 'b' }] }, downstream: ['LLM:x'] },
      'LLM:x': { name: 'LLM', params: { llm_id: 'm', prompts: [{ role: 'user', content: 'x' }] }, downstream: ['Message:c'] },
      'Message:c': message('{LLM:a@content}/{LLM:x@content}'),
    });
    const d = driver({ 'LLM:a': ['A'], 'LLM:b': ['B'], 'LLM:x': ['X'] });
    const { events, state } = await d.run(canvas);
    const t = timeline(events);
    expect(t.filter((e) => e === 'node_started:Message:c')).toHaveLength(2);
    expect(t.filter((e) => e === 'node_finished:Message:c')).toHaveLength(1);
    expect(t.indexOf('node_finished:LLM:x')).toBeLessThan(t.indexOf('node_finished:Message:c'));
    expect(state.outputs['Message:c']!.content).toBe('A/X');
  });

  it('does not append the same component twice in a row', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Message:m', 'Message:m'] },
      'Message:m': message('hi'),
    });
    const { state } = await driver({}).run(canvas);
    expect(state.path).toEqual(['begin', 'Message:m']);
  });
});

describe('routing with _next', () => {
  const categorize = (to: Record<string, string>) => ({
    name: 'Categorize',
    params: { llm_id: 'm', category_description: Object.fromEntries(Object.entries(to).map(([k, v]) => [k, { description: `about ${k}`, to: [v] }])) },
    downstream: Object.values(to),
  });

  it('follows the category the model names most often', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Categorize:c'] },
      'Categorize:c': categorize({ billing: 'Message:b', tech: 'Message:t' }),
      'Message:b': message('billing'),
      'Message:t': message('tech'),
    });
    const { state, events } = await driver({ 'Categorize:c': ['tech, definitely tech, not billing'] }).run(canvas);
    expect(state.path).toEqual(['begin', 'Categorize:c', 'Message:t']);
    expect(state.outputs['Categorize:c']).toMatchObject({ category_name: 'tech', _next: ['Message:t'] });
    expect(timeline(events)).not.toContain('node_started:Message:b');
  });

  it('takes the last category when the answer names none', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['Categorize:c'] },
      'Categorize:c': categorize({ billing: 'Message:b', other: 'Message:o' }),
      'Message:b': message('billing'),
      'Message:o': message('other'),
    });
    const { state } = await driver({ 'Categorize:c': ['no idea'] }).run(canvas);
    expect(state.path.at(-1)).toBe('Message:o');
  });
});

describe('exception handling', () => {
  it('jumps to exception_goto when a component fails and skips its downstream', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm', exception_method: 'goto', exception_goto: ['Message:oops'] }, downstream: ['Message:ok'] },
      'Message:ok': message('{LLM:a@content}'),
      'Message:oops': message('sorry'),
    });
    const { state, events } = await driver({ 'LLM:a': [{ error: 'model down' }] }).run(canvas);
    expect(state.path).toEqual(['begin', 'LLM:a', 'Message:oops']);
    expect(state.status).toBe('finished');
    expect(nodeFinished(events, 'LLM:a')!.data.error).toBe('model down');
  });

  it('uses the default value for a failed component with the comment method', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': llm(['Message:m'], { exception_method: 'comment', exception_default_value: 'fallback text' }),
      'Message:m': message('[{LLM:a@content}]'),
    });
    const { state, events } = await driver({ 'LLM:a': [{ error: 'model down' }] }).run(canvas);
    expect(state.status).toBe('finished');
    expect(state.outputs['Message:m']!.content).toBe('[fallback text]');
    expect(timeline(events)).toContain('message:fallback text');
  });

  it('fails the run with run_failed when nothing handles the error', async () => {
    const canvas = compile({ begin: { name: 'Begin', downstream: ['LLM:a'] }, 'LLM:a': llm(['Message:m']), 'Message:m': message('{LLM:a@content}') });
    const { state, events } = await driver({ 'LLM:a': [{ error: 'model down' }] }).run(canvas);
    expect(state.status).toBe('failed');
    expect(events.at(-1)).toMatchObject({ event: 'run_failed', data: { error: 'model down' } });
    expect(timeline(events)).not.toContain('workflow_finished');
  });
});

describe('variables', () => {
  it('reads nested outputs of structured answers', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:s'] },
      'LLM:s': {
        name: 'LLM',
        params: { llm_id: 'm', outputs: { structured: { type: 'object', properties: { items: { type: 'array' } } } } },
        downstream: ['Message:m'],
      },
      'Message:m': message('first: {LLM:s@structured.items.0.title}'),
    });
    const { state } = await driver({ 'LLM:s': ['```json\n{"items": [{"title": "Dune"}, {"title": "Emma"}],}\n```'] }).run(canvas);
    expect(state.outputs['LLM:s']!.structured).toEqual({ items: [{ title: 'Dune' }, { title: 'Emma' }] });
    expect(state.outputs['Message:m']!.content).toBe('first: Dune');
  });

  it('asks again when a structured answer is not JSON, up to max_retries', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:s'] },
      'LLM:s': {
        name: 'LLM',
        params: { llm_id: 'm', max_retries: 1, outputs: { structured: { type: 'object', properties: { a: { type: 'number' } } } } },
        downstream: [],
      },
    });
    const d = driver({ 'LLM:s': ['not json at all', '{"a": 1}'] });
    const { state } = await d.run(canvas);
    expect(state.outputs['LLM:s']!.structured).toEqual({ a: 1 });
    expect(d.calls).toHaveLength(2);
    expect(llmRequest(d.calls[1]!).messages.at(-1)!.content).toMatch(/can't be parsed as JSON/);
  });

  it('lets VariableAssigner write env variables that later components read', async () => {
    const canvas = compile(
      {
        begin: { name: 'Begin', downstream: ['VariableAssigner:v'] },
        'VariableAssigner:v': {
          name: 'VariableAssigner',
          params: {
            variables: [
              { variable: 'env.count', operator: '+=', parameter: 2 },
              { variable: 'env.name', operator: 'set', parameter: 'user {sys.query}' },
            ],
          },
          downstream: ['Message:m'],
        },
        'Message:m': message('{env.name}: {env.count}'),
      },
      { variables: { count: { name: 'count', type: 'number', value: 40 }, name: { name: 'name', type: 'string' } } },
    );
    const { state } = await driver({}).run(canvas, { query: 'ann' });
    expect(state.outputs['Message:m']!.content).toBe('user ann: 42');
  });

  it('aggregates the first branch that produced a value', async () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm' }, downstream: ['VariableAggregator:g'] },
      'VariableAggregator:g': {
        name: 'VariableAggregator',
        params: { groups: [{ group_name: 'answer', variables: [{ value: 'LLM:missing@content' }, { value: 'LLM:a@content' }] }] },
        downstream: ['Message:m'],
      },
      'LLM:missing': { name: 'LLM', params: { llm_id: 'm' } },
      'Message:m': message('{VariableAggregator:g@answer}'),
    });
    const { state } = await driver({ 'LLM:a': ['from a'] }).run(canvas);
    expect(state.outputs['Message:m']!.content).toBe('from a');
  });

  it('takes Begin inputs from the request, or from the query for a single field', async () => {
    const beginParams = { mode: 'task', inputs: { review: { key: 'review', name: 'review', type: 'line', optional: false } } };
    const canvas = compile({ begin: { name: 'Begin', params: beginParams, downstream: ['Message:m'] }, 'Message:m': message('got {begin@review}') });
    const viaQuery = await driver({}).run(canvas, { query: 'too slow' });
    expect(viaQuery.state.outputs['Message:m']!.content).toBe('got too slow');
    const viaInputs = await driver({}).run(canvas, { query: '', inputs: { review: { value: 'great', type: 'line' } } });
    expect(viaInputs.state.outputs['Message:m']!.content).toBe('got great');
  });
});

describe('cancellation', () => {
  it('ends in-flight nodes with RAGFlow’s cancel error and finishes as canceled', () => {
    const canvas = compile({
      begin: { name: 'Begin', downstream: ['LLM:a'] },
      'LLM:a': { name: 'LLM', params: { llm_id: 'm' }, downstream: ['Message:m'] },
      'Message:m': message('x'),
    });
    const started = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q' }, 1000);
    // LLM:a is not streamed (it feeds... a Message that does not show it), so it was called.
    expect(started.calls).toHaveLength(1);
    const canceled = cancelRun(canvas, started.state, 'user asked', 2000);
    expect(timeline(canceled.events)).toEqual(['node_finished:LLM:a', 'run_canceled', 'workflow_finished']);
    expect(dataOf(canceled.events[0], 'node_finished').error).toBe('Task has been canceled');
    expect(dataOf(canceled.events.at(-1), 'workflow_finished').outputs).toBe('Task has been canceled');
    expect(canceled.status).toBe('canceled');
    // Late results of the canceled call change nothing.
    const late = resumeRun(canvas, canceled.state, [{ callId: started.calls[0]!.callId, ok: true, value: { content: 'late' } }], 3000);
    expect(late.events).toEqual([]);
  });
});

describe('purity', () => {
  it('does not change the state it is given', () => {
    const canvas = compile({ begin: { name: 'Begin', downstream: ['LLM:a'] }, 'LLM:a': { name: 'LLM', params: { llm_id: 'm' } } });
    const started = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q' }, 1000);
    const before = JSON.stringify(started.state);
    resumeRun(
      canvas,
      started.state,
      [{ callId: started.calls[0]!.callId, ok: true, value: { content: 'a', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } }],
      2000,
    );
    expect(JSON.stringify(started.state)).toBe(before);
  });

  it('produces the same events for the same inputs and times', () => {
    const canvas = compile({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': message('{sys.query}') });
    const a = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q' }, 1000);
    const b = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q' }, 1000);
    expect(a.events).toEqual(b.events);
  });
});

describe('a run the API announced', () => {
  it('starts at event 2 without a second workflow_started, after the announcement the API recorded as event 1', () => {
    const canvas = compile({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': message('hi') });
    const step = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q', announced: true }, 0);
    expect(step.events.map((e) => e.event)).not.toContain('workflow_started');
    expect(step.events[0]!.seq).toBe(2);
    const plain = startRun(canvas, { runId: 'r', messageId: 'm', query: 'q' }, 0);
    expect(plain.events.map((e) => `${e.seq}:${e.event}`).slice(0, 2)).toEqual(['1:workflow_started', `2:${step.events[0]!.event}`]);
  });
});
