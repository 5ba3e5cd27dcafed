import { describe, expect, it } from 'vitest';
import type { ToolInvokeResult } from '../components/callContracts';
import { compile } from '../../../test/helpers/canvasKit';
import { answerResult, llmRequest } from '../../../test/helpers/engineDriver';
import { expectEventsInMap } from '../../../test/helpers/runEvents';
import { resumeRun, startRun, type StepResult } from './run';
import { steerableAgents, steerRefusal, steerRun } from './steer';
import type { CompiledCanvas } from './compile';

const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
const NOW = 1_700_000_000_000;

function agentCanvas(agentParams: Record<string, unknown>): CompiledCanvas {
  return compile({
    begin: { name: 'Begin', downstream: ['Agent:a'] },
    'Agent:a': {
      name: 'Agent',
      params: { llm_id: 'm@OpenAI', sys_prompt: 'You research.', max_rounds: 3, tools: [search], ...agentParams },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
  });
}

const toolAnswer = (text: string): ToolInvokeResult => ({ text, outputs: {}, elapsedMs: 5 });

/** Answers the step's only call with `value`. */
function answer(canvas: CompiledCanvas, step: StepResult, value: unknown, state = step.state): StepResult {
  expect(step.calls).toHaveLength(1);
  return resumeRun(canvas, state, [{ callId: step.calls[0]!.callId, ok: true, value }], NOW + 1000);
}

describe('steering a running Agent', () => {
  it('gives the Agent the message as a user message in its next model request, after the round’s tool results', () => {
    const canvas = agentCanvas({});
    const first = startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'find flights' }, NOW);
    const toolRound = answer(canvas, first, answerResult('', [{ id: 't1', name: 'tavily_search_0', arguments: '{"query":"flights"}' }]));
    expect(toolRound.calls[0]!.call.activity).toBe('toolInvoke');
    expect(steerableAgents(toolRound.state)).toEqual(['Agent:a']);

    const filed = steerRun(canvas, toolRound.state, [{ id: 's1', text: 'Only direct flights, please.' }], NOW + 500);
    expectEventsInMap(filed.events);
    expect(filed.events.map((e) => [e.event, e.data])).toEqual([
      ['message_steered', { steer_id: 's1', content: 'Only direct flights, please.', component_ids: ['Agent:a'] }],
    ]);
    expect(filed.events[0]!.seq).toBe(toolRound.state.events.lastSeq + 1);

    const next = answer(canvas, toolRound, toolAnswer('3 flights found'), filed.state);
    expect(llmRequest(next.calls[0]!).messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: '3 flights found' },
      { role: 'user', content: 'Only direct flights, please.' },
    ]);
    // Given once: the round after it does not repeat it.
    const after = answer(canvas, next, answerResult('', [{ id: 't2', name: 'tavily_search_0', arguments: '{"query":"direct"}' }]));
    const last = answer(canvas, after, toolAnswer('1 direct flight'));
    expect(llmRequest(last.calls[0]!).messages.filter((m) => m.content === 'Only direct flights, please.')).toHaveLength(1);
  });

  it('asks the model again when its answer came back without tool calls while a message waited, so the message is not left unread', () => {
    const canvas = agentCanvas({});
    const first = startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'find flights' }, NOW);
    expect(steerableAgents(first.state)).toEqual(['Agent:a']);
    const filed = steerRun(canvas, first.state, [{ id: 's1', text: 'And hotels too.' }], NOW + 500);
    const next = answer(canvas, first, answerResult('Here are flights.'), filed.state);
    expect(next.status).toBe('running');
    expect(llmRequest(next.calls[0]!).messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'Here are flights.' },
      { role: 'user', content: 'And hotels too.' },
    ]);
  });

  it('shows a message steered into a ReAct Agent in its next plan, keeping the task as asked', () => {
    const canvas = agentCanvas({ strategy: 'react' });
    const analyze = startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'find flights' }, NOW);
    const filed = steerRun(canvas, analyze.state, [{ id: 's1', text: 'Budget is 300 EUR.' }], NOW + 500);
    const plan = answer(canvas, analyze, answerResult('The goal is flights.'), filed.state);
    const prompt = llmRequest(plan.calls[0]!).messages.at(-1)!.content as string;
    expect(prompt).toContain('Task: find flights');
    expect(prompt).toContain('The user added while you worked: Budget is 300 EUR.');
  });

  it('refuses when no Agent is in a model round, saying where the run is', () => {
    const plain = compile({
      begin: { name: 'Begin', downstream: ['LLM:l'] },
      'LLM:l': { name: 'LLM', params: { llm_id: 'm@OpenAI', sys_prompt: 'x' }, downstream: ['Message:m'] },
      'Message:m': { name: 'Message', params: { content: ['{LLM:l@content}'] } },
    });
    const step = startRun(plain, { runId: 'r1', messageId: 'm1', query: 'hi' }, NOW);
    expect(steerableAgents(step.state)).toEqual([]);
    expect(steerRefusal(step.state)).toMatch(/no Agent of the run is in a model round .*it runs .*LLM:l/);
    expect(steerRefusal({ ...step.state, status: 'paused' })).toMatch(/waits at a form/);
  });

  it('refuses once the Agent writes its final answer (no model request follows)', () => {
    const canvas = agentCanvas({ max_rounds: 0 });
    const first = startRun(canvas, { runId: 'r1', messageId: 'm1', query: 'q' }, NOW);
    // Its one tool round is used up: the model is asked for the final answer, without tools.
    const writing = answer(canvas, first, answerResult('', [{ id: 't1', name: 'tavily_search_0', arguments: '{}' }]));
    expect(llmRequest(writing.calls[0]!).tools ?? []).toEqual([]);
    expect(steerableAgents(writing.state)).toEqual([]);
  });
});
