import { describe, expect, it } from 'vitest';
import type { ToolInvokeResult } from '../components/callContracts';
import { parsePlan } from '../components/agent/react';
import { compile } from '../../../test/helpers/canvasKit';
import { driver, llmRequest, timeline, type Answer } from '../../../test/helpers/engineDriver';

const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'k' } };
const extract = { component_name: 'TavilyExtract', name: 'Reader', params: {} };

function agentCanvas(agentParams: Record<string, unknown>) {
  return compile({
    begin: { name: 'Begin', downstream: ['Agent:a'] },
    'Agent:a': { name: 'Agent', params: { llm_id: 'm@OpenAI', sys_prompt: 'You research.', max_rounds: 2, ...agentParams }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
  });
}

const toolText = (text: string): Answer => ({ value: { text, outputs: {}, elapsedMs: 5 } satisfies ToolInvokeResult });

describe('Agent with function calling', () => {
  it('runs two tool calls of one round in parallel, then answers; the model sees OpenAI tool messages', async () => {
    const canvas = agentCanvas({ tools: [search, extract] });
    const d = driver({
      'Agent:a': [
        {
          toolCalls: [
            { id: 't1', name: 'tavily_search_0', arguments: { query: 'temporal' } },
            { id: 't2', name: 'tavily_extract_1', arguments: { urls: ['https://x.test'] } },
          ],
        },
        'Temporal is durable.',
      ],
      'Agent:a:toolInvoke': [toolText('search results'), toolText('page text')],
    });
    const { state, events } = await d.run(canvas, { query: 'what is temporal?' });
    expect(state.status).toBe('finished');
    // Round 1: model; then both tools in one step; then model again.
    expect(d.calls.map((c) => c.call.activity)).toEqual(['llmChat', 'toolInvoke', 'toolInvoke', 'llmChat']);
    const first = llmRequest(d.calls[0]!);
    expect(first.tools!.map((t) => t.function.name)).toEqual(['tavily_search_0', 'tavily_extract_1']);
    const second = llmRequest(d.calls[3]!);
    expect(second.messages.slice(-3)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'tavily_search_0', arguments: '{"query":"temporal"}' } },
          { id: 't2', type: 'function', function: { name: 'tavily_extract_1', arguments: '{"urls":["https://x.test"]}' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'search results' },
      { role: 'tool', tool_call_id: 't2', content: 'page text' },
    ]);
    expect(state.outputs['Message:m']!.content).toBe('Temporal is durable.');
    const uses = state.outputs['Agent:a']!.use_tools as Array<{ name: string; round: number }>;
    expect(uses.map((u) => [u.name, u.round])).toEqual([
      ['Search', 1],
      ['Reader', 1],
    ]);
    const toolEvents = events.filter((e) => e.event === 'tool_call');
    expect(toolEvents.map((e) => e.data.function)).toEqual(['tavily_search_0', 'tavily_extract_1']);
    expect(toolEvents[0]!.data).toMatchObject({
      component_id: 'Agent:a',
      round: 1,
      tool_name: 'Search',
      arguments: { query: 'temporal' },
      result: 'search results',
    });
    // The tool calls show between node_started and the streamed answer.
    expect(timeline(events).indexOf('tool_call:Agent:a')).toBeGreaterThan(timeline(events).indexOf('node_started:Message:m'));
  });

  it('tells the model about an unknown tool and about malformed arguments, and goes on', async () => {
    const canvas = agentCanvas({ tools: [search] });
    const d = driver({
      'Agent:a': [
        {
          toolCalls: [
            { id: 'a', name: 'no_such_tool', arguments: {} },
            { id: 'b', name: 'tavily_search_0', arguments: '{"query": ' },
          ],
        },
        'Sorry, done.',
      ],
    });
    const { state } = await d.run(canvas);
    expect(state.status).toBe('finished');
    expect(d.calls.map((c) => c.call.activity)).toEqual(['llmChat', 'llmChat']);
    const tools = llmRequest(d.calls[1]!).messages.filter((m) => m.role === 'tool');
    expect(tools[0]!.content).toMatch(/Unknown tool "no_such_tool"\. Available tools: tavily_search_0/);
    expect(tools[1]!.content).toMatch(/(not valid JSON|missing required argument)/);
  });

  it('repairs slightly broken JSON arguments', async () => {
    const canvas = agentCanvas({ tools: [search] });
    const d = driver({ 'Agent:a': [{ toolCalls: [{ name: 'tavily_search_0', arguments: "{'query': 'x',}" }] }, 'ok'], 'Agent:a:toolInvoke': [toolText('r')] });
    await d.run(canvas);
    const call = d.calls.find((c) => c.call.activity === 'toolInvoke')!;
    expect(call.call.request).toMatchObject({
      componentName: 'TavilySearch',
      args: { query: 'x' },
      paramsPath: ['components', 'Agent:a', 'obj', 'params', 'tools', 0, 'params'],
    });
  });

  it('reads the tools of early RAGFlow canvases from llm_enabled_tools', async () => {
    const canvas = agentCanvas({ llm_enabled_tools: [search] });
    const d = driver({ 'Agent:a': [{ toolCalls: [{ name: 'tavily_search_0', arguments: { query: 'x' } }] }, 'ok'], 'Agent:a:toolInvoke': [toolText('r')] });
    await d.run(canvas);
    expect(llmRequest(d.calls[0]!).tools!.map((t) => t.function.name)).toEqual(['tavily_search_0']);
    expect(d.calls[1]!.call.request).toMatchObject({ paramsPath: ['components', 'Agent:a', 'obj', 'params', 'llm_enabled_tools', 0, 'params'] });
  });

  it('answers with the structured output, reformatting a non-JSON answer once', async () => {
    const canvas = agentCanvas({ tools: [search], max_retries: 1, outputs: { structured: { type: 'object', properties: { year: { type: 'number' } } } } });
    const d = driver({ 'Agent:a': ['The year is 2019.', '{"year": 2019,}'] });
    const { state } = await d.run(canvas);
    expect(state.status).toBe('finished');
    expect(state.outputs['Agent:a']!.structured).toEqual({ year: 2019 });
    expect(llmRequest(d.calls[1]!)).toMatchObject({ json: true, show: false });
  });

  it('fails cleanly when the structured answer stays unreadable after max_retries', async () => {
    const canvas = agentCanvas({ tools: [search], max_retries: 1, outputs: { structured: { type: 'object', properties: { year: { type: 'number' } } } } });
    const d = driver({ 'Agent:a': ['no json', 'still no json'] });
    const { state } = await d.run(canvas);
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/could not be parsed as JSON after 2 attempt/);
  });

  it('forces an answer without tools once max_rounds is used up', async () => {
    const canvas = agentCanvas({ tools: [search], max_rounds: 1 });
    const loop: Answer = { toolCalls: [{ name: 'tavily_search_0', arguments: { query: 'again' } }] };
    const d = driver({ 'Agent:a': [loop, loop, 'Final after the limit.'], 'Agent:a:toolInvoke': [toolText('r1'), toolText('r2')] });
    const { state } = await d.run(canvas);
    expect(state.outputs['Message:m']!.content).toBe('Final after the limit.');
    const models = d.calls.filter((c) => c.call.activity === 'llmChat').map(llmRequest);
    expect(models).toHaveLength(3);
    expect(models[0]!.tools).toHaveLength(1);
    expect(models[1]!.tools).toHaveLength(1);
    expect(models[2]!.tools).toBeUndefined();
    expect(models[2]!.messages.at(-1)!.content).toMatch(/used all 2 rounds/);
  });

  it('feeds a failed tool back to the model as an error result instead of failing', async () => {
    const canvas = agentCanvas({ tools: [search] });
    const d = driver({
      'Agent:a': [{ toolCalls: [{ name: 'tavily_search_0', arguments: { query: 'x' } }] }, 'Answer anyway.'],
      'Agent:a:toolInvoke': [{ error: 'Tavily is down' }],
    });
    const { state } = await d.run(canvas);
    expect(state.status).toBe('finished');
    expect(llmRequest(d.calls[2]!).messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: Tavily is down' });
  });

  it('calls a sub-agent as a child run with RAGFlow’s arguments', async () => {
    const sub = { component_name: 'Agent', name: 'Web Search Specialist', params: { llm_id: 'm@OpenAI', description: 'Finds URLs.', tools: [search] } };
    const canvas = agentCanvas({ tools: [sub] });
    const d = driver({
      'Agent:a': [
        { toolCalls: [{ name: 'Web_Search_Specialist_0', arguments: { user_prompt: 'find sources', reasoning: 'need URLs', context: 'topic: temporal' } }] },
        'Report.',
      ],
      'Agent:a:subAgent': [
        {
          value: {
            content: 'https://temporal.io',
            childTaskId: 'child1',
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, calls: 1 },
            elapsedMs: 30,
          },
        },
      ],
    });
    const { state, events } = await d.run(canvas);
    const call = d.calls.find((c) => c.call.activity === 'subAgent')!;
    expect(call.call.request).toMatchObject({
      componentId: 'Agent:a-->Web_Search_Specialist',
      args: { user_prompt: 'find sources', reasoning: 'need URLs', context: 'topic: temporal' },
    });
    const schema = llmRequest(d.calls[0]!).tools![0]!.function;
    expect(schema).toMatchObject({ name: 'Web_Search_Specialist_0', description: 'Finds URLs.' });
    expect((schema.parameters as { required: string[] }).required).toEqual(['user_prompt', 'reasoning', 'context']);
    expect(events.find((e) => e.event === 'tool_call')!.data).toMatchObject({ child_task_id: 'child1', result: 'https://temporal.io' });
    expect(state.outputs['Message:m']!.content).toBe('Report.');
  });

  it('lists an MCP server’s tools once when the DSL does not name them', async () => {
    const canvas = agentCanvas({ mcp: [{ mcp_id: 'srv1', tools: {} }] });
    const d = driver({
      'Agent:a:mcpListTools': [
        {
          value: {
            tools: [
              {
                name: 'weather',
                description: 'Weather by city',
                inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            ],
          },
        },
      ],
      'Agent:a': [{ toolCalls: [{ name: 'weather_0', arguments: { city: 'Oslo' } }] }, 'It is cold.'],
      'Agent:a:mcpCall': [{ value: { text: '-3°C', isError: false, elapsedMs: 3 } }],
    });
    const { state } = await d.run(canvas);
    expect(d.calls.map((c) => c.call.activity)).toEqual(['mcpListTools', 'llmChat', 'mcpCall', 'llmChat']);
    expect(d.calls[2]!.call.request).toMatchObject({ mcpId: 'srv1', tool: 'weather', args: { city: 'Oslo' }, timeoutMs: 60000 });
    expect(state.outputs['Message:m']!.content).toBe('It is cold.');
  });
});

describe('Agent with text ReAct', () => {
  it('completes with a model that never emits tool_calls: analyze, plan, act, reflect, answer', async () => {
    const canvas = agentCanvas({ tools: [search], strategy: 'react' });
    const d = driver({
      'Agent:a': [
        'The user wants facts about Temporal.',
        '```json\n[{"name": "tavily_search_0", "arguments": {"query": "temporal workflows"}}]\n```',
        'Enough found.',
        '[{"name": "complete_task", "arguments": {"answer": "draft"}}]',
        'Temporal runs durable workflows.',
      ],
      'Agent:a:toolInvoke': [toolText('Temporal is a durable execution platform')],
    });
    const { state } = await d.run(canvas, { query: 'tell me about temporal' });
    expect(state.status).toBe('finished');
    expect(d.calls.map((c) => c.call.activity)).toEqual(['llmChat', 'llmChat', 'toolInvoke', 'llmChat', 'llmChat', 'llmChat']);
    const requests = d.calls.filter((c) => c.call.activity === 'llmChat').map(llmRequest);
    expect(requests.every((r) => r.tools === undefined)).toBe(true);
    // Only the final answer may show in the Message.
    expect(requests.map((r) => r.show !== false)).toEqual([false, false, false, false, true]);
    expect(state.outputs['Message:m']!.content).toBe('Temporal runs durable workflows.');
  });

  it('picks ReAct automatically for a model without tool calling', async () => {
    const canvas = agentCanvas({ tools: [search], llm_id: 'tiny@LocalAI' });
    const d = driver({ 'Agent:a': ['analysis', '[{"name": "complete_task", "arguments": {"answer": "x"}}]', 'final'] });
    await d.run(canvas, { toolCalling: { byFactory: { LocalAI: false }, defaultFactory: 'OpenAI', defaultModelId: 'x' } });
    expect(llmRequest(d.calls[0]!).show).toBe(false);
  });

  it('reads plans in the shapes models write them', () => {
    expect(parsePlan('[{"name": "a", "arguments": {"q": 1}}]<|stop|>')).toMatchObject({ ok: true, calls: [{ fn: 'a', args: { q: 1 } }] });
    expect(parsePlan('Sure! {"name": "a", "arguments": {}}')).toMatchObject({ ok: true, calls: [{ fn: 'a' }] });
    expect(parsePlan('<think>hmm</think>[{name: "b", arguments: {x: "y"},}]')).toMatchObject({ ok: true, calls: [{ fn: 'b', args: { x: 'y' } }] });
    expect(parsePlan('no json here').ok).toBe(false);
  });
});
