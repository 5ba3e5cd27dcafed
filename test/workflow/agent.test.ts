/**
 * Agents with tools on a real Temporal dev server: function calling and text ReAct against the
 * scripted OpenAI-compatible model, web search against a local Tavily stand-in, sub-agents as
 * child workflows, and MCP servers built with the official SDK (stdio and streamable HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { STDIO_SERVER, startHttpMcpServer, type HttpMcpServer } from '../helpers/mcpServers';
import { startScriptedLlm, type RecordedCall, type Reply, type ScriptedLlm } from '../helpers/scriptedLlm';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';
import { startWebSearchServer, type WebSearchServer } from '../helpers/webSearchServer';
import { nodeFinished } from '../helpers/runEvents';

let store: Store;
let llm: ScriptedLlm;
let web: WebSearchServer;
let mcpHttp: HttpMcpServer;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-agents';

beforeAll(async () => {
  [store, llm, web, mcpHttp, temporal] = await Promise.all([
    openStore({}),
    startScriptedLlm(),
    startWebSearchServer(),
    startHttpMcpServer(),
    connectTemporal(),
  ]);
  await store.tenants.ensure(tenantId, 'agent tests');
  worker = await startWorker({
    nativeConnection: temporal.nativeConnection,
    store,
    llmBaseUrl: llm.url,
    env: { TAVILY_BASE_URL: web.url, MCP_STDIO_COMMANDS: 'node', NETWORK_ALLOW_HOSTS: new URL(mcpHttp.url).host },
  });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), web?.stop(), mcpHttp?.stop(), store?.close()]);
});

/** Answers the calls whose prompt contains `marker` with `replies`, one per call, in order. */
function script(marker: string, replies: Reply[]): RecordedCall[] {
  const seen: RecordedCall[] = [];
  llm.when((call) => {
    if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes(marker))) return undefined;
    seen.push(call);
    return replies[seen.length - 1] ?? { content: `no more scripted replies for ${marker}` };
  });
  return seen;
}

const tc = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });
const model = 'scripted@OpenAI';
const search = { component_name: 'TavilySearch', name: 'Search', params: { api_key: 'tvly-secret' } };
const reader = { component_name: 'TavilyExtract', name: 'Reader', params: { api_key: 'tvly-secret' } };

function agentCanvas(agent: Record<string, unknown>): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Agent:a'] },
    'Agent:a': { name: 'Agent', params: { llm_id: model, ...agent }, downstream: ['Message:m'] },
    'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
  });
}

async function run(title: string, canvas: Record<string, unknown>, query: string, settings: Partial<LaunchDeps['settings']> = {}) {
  const saved: CanvasRecord = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(
    { ...deps, settings: { ...deps.settings, ...settings } },
    { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null },
  );
  const handle = temporal.client.workflow.getHandle(launched.workflowId);
  const result = (await handle.result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  return { ...launched, handle, result, events };
}

describe('an Agent with tools, as a workflow', () => {
  it('calls two tools in parallel in one round, then answers; the model receives OpenAI tool messages', async () => {
    const calls = script('MARK-parallel', [
      { toolCalls: [tc('call_a', 'tavily_search_0', { query: 'temporal' }), tc('call_b', 'tavily_extract_1', { urls: ['https://docs.temporal.io'] })] },
      { content: 'Temporal is durable.', usage: { prompt_tokens: 40, completion_tokens: 4 } },
    ]);
    const before = web.calls.length;
    const r = await run('parallel tools', agentCanvas({ sys_prompt: 'MARK-parallel You research.', tools: [search, reader] }), 'what is temporal?');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Temporal is durable.' });

    expect(calls).toHaveLength(2);
    expect((calls[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['tavily_search_0', 'tavily_extract_1']);
    const second = calls[1]!.body.messages;
    expect(second.slice(-3)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'tavily_search_0', arguments: '{"query":"temporal"}' } },
          { id: 'call_b', type: 'function', function: { name: 'tavily_extract_1', arguments: '{"urls":["https://docs.temporal.io"]}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: expect.stringContaining('Finding 1 about temporal.') },
      { role: 'tool', tool_call_id: 'call_b', content: 'URL: https://docs.temporal.io\nFull text of https://docs.temporal.io.' },
    ]);

    // The tools reached the web API with the key from the stored canvas (never in workflow history).
    const mine = web.calls.slice(before);
    expect(mine.map((c) => c.path).sort()).toEqual(['/extract', '/search']);
    expect(mine.every((c) => c.authorization === 'Bearer tvly-secret')).toBe(true);
    const history = JSON.stringify(await r.handle.fetchHistory());
    expect(history).not.toContain('tvly-secret');

    // Usage: both model calls, summed into the node and the run.
    expect(r.result.usage.calls).toBe(2);
    expect(r.result.usage.completion_tokens).toBe(10 + 4);
    const finished = r.events.find((e) => e.event === 'workflow_finished')!;
    expect(finished.data.usage).toMatchObject({ calls: 2, completion_tokens: 14 });

    // Tool progress: extension events and use_tools in node_finished.
    const toolEvents = r.events.filter((e) => e.event === 'tool_call').map((e) => e.data);
    expect(toolEvents).toMatchObject([
      { component_id: 'Agent:a', round: 1, tool_name: 'Search', function: 'tavily_search_0', arguments: { query: 'temporal' }, error: null },
      { component_id: 'Agent:a', round: 1, tool_name: 'Reader', function: 'tavily_extract_1', error: null },
    ]);
    const agentDone = nodeFinished(r.events, 'Agent:a')!;
    expect((agentDone.data.outputs as { use_tools: unknown[] }).use_tools).toHaveLength(2);
  });

  it('completes a text ReAct agent with a model that never emits tool_calls', async () => {
    const calls = script('MARK-react', [
      { content: 'Goal: facts about Temporal. Missing: sources.' },
      { content: '```json\n[{"name": "tavily_search_0", "arguments": {"query": "temporal durability"}}]\n```' },
      { content: 'The search answered it.' },
      { content: '[{"name": "complete_task", "arguments": {"answer": "draft"}}]' },
      { content: 'Temporal replays workflow history.' },
    ]);
    const r = await run(
      'react',
      agentCanvas({ sys_prompt: 'MARK-react You research.', tools: [search], strategy: 'react' }),
      'how does temporal survive crashes?',
    );
    expect(r.result).toMatchObject({ status: 'finished', content: 'Temporal replays workflow history.' });
    expect(calls).toHaveLength(5);
    expect(calls.every((c) => c.body.tools === undefined)).toBe(true);
    // The reflection saw the tool's result.
    expect(JSON.stringify(calls[2]!.body.messages)).toContain('Finding 1 about temporal durability.');
  });

  it('forces an answer without tools when the model keeps calling tools past max_rounds', async () => {
    const loop = { toolCalls: [tc('again', 'tavily_search_0', { query: 'more' })] };
    const calls = script('MARK-endless', [loop, loop, loop, { content: 'Here is what I found.' }]);
    const r = await run('endless', agentCanvas({ sys_prompt: 'MARK-endless', tools: [search], max_rounds: 2 }), 'search forever');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Here is what I found.' });
    expect(calls.at(-1)!.body.tools).toBeUndefined();
  });

  it('runs a sub-agent as a child workflow and gives its answer to the lead agent', async () => {
    const researcher = {
      component_name: 'Agent',
      name: 'Researcher',
      params: { llm_id: model, sys_prompt: 'MARK-sub You find facts.', tools: [search], description: 'Finds facts on the web.' },
    };
    const lead = script('MARK-lead', [
      { toolCalls: [tc('s1', 'Researcher_0', { user_prompt: 'find the release year', reasoning: 'need a fact', context: 'about Temporal' })] },
      { content: 'Temporal was released in 2019.' },
    ]);
    const sub = script('MARK-sub', [{ toolCalls: [tc('w1', 'tavily_search_0', { query: 'temporal release year' })] }, { content: '2019, per the sources.' }]);
    const r = await run('sub-agent', agentCanvas({ sys_prompt: 'MARK-lead You lead.', tools: [researcher] }), 'when was temporal released?');
    expect(r.result).toMatchObject({ status: 'finished', content: 'Temporal was released in 2019.' });

    // The sub-agent got RAGFlow's prompt and its own tool call went through.
    expect(sub).toHaveLength(2);
    expect(sub[0]!.body.messages.at(-1)!.content).toBe('\nREASONING:\nneed a fact\n\nCONTEXT:\nabout Temporal\n\nQUERY:\nfind the release year\n');
    expect(lead[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's1', content: '2019, per the sources.' });

    // It ran as a child workflow of the run, recorded as a run whose parent is the caller's.
    const use = r.events.find((e) => e.event === 'tool_call')!.data as { child_task_id: string };
    const child = await store.runs.getById(use.child_task_id);
    expect(child).toMatchObject({ parent_run_id: r.runId, status: 'finished', tenant_id: tenantId });
    const description = await temporal.client.workflow.getHandle(child!.workflow_id).describe();
    expect(description.type).toBe('subAgentRun');
    expect(description.parentExecution?.workflowId).toBe(r.workflowId);
    // The sub-agent's model calls count toward the run.
    expect(r.result.usage.calls).toBe(4);
  });

  it('calls tools of MCP servers over stdio and streamable HTTP, listing them once per run', async () => {
    const stdio = await store.mcpServers.create({
      tenantId,
      name: `stdio-${Date.now()}`,
      serverType: 'stdio',
      command: STDIO_SERVER.command,
      args: STDIO_SERVER.args,
    });
    const http = await store.mcpServers.create({
      tenantId,
      name: `http-${Date.now()}`,
      serverType: 'streamable-http',
      url: mcpHttp.url,
      headers: { Authorization: 'Bearer ${authorization_token}' },
      variables: { authorization_token: 'mcp-token' },
    });
    const calls = script('MARK-mcp', [
      { toolCalls: [tc('m1', 'lookup_order_0', { order_id: 'A-1' }), tc('m2', 'lookup_order_2', { order_id: 'B-2' }), tc('m3', 'fail_always_1', {})] },
      { content: 'Both orders shipped.' },
    ]);
    const r = await run(
      'mcp',
      agentCanvas({
        sys_prompt: 'MARK-mcp',
        mcp: [
          { mcp_id: stdio.id, tools: {} },
          { mcp_id: http.id, tools: {} },
        ],
        mcp_timeout: 20,
      }),
      'where are my orders?',
    );
    expect(r.result).toMatchObject({ status: 'finished', content: 'Both orders shipped.' });
    expect((calls[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      'lookup_order_0',
      'fail_always_1',
      'lookup_order_2',
      'fail_always_3',
    ]);
    const toolMessages = calls[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolMessages).toEqual([
      'order A-1 (via stdio): shipped on 2026-11-02',
      'order B-2 (via http): shipped on 2026-11-02',
      'Error: MCP server error: the warehouse is offline',
    ]);
    expect(mcpHttp.calls).toContainEqual({ name: 'lookup_order', arguments: { order_id: 'B-2' } });
    expect(mcpHttp.headers.every((h) => h.authorization === 'Bearer mcp-token')).toBe(true);
  });

  it('continues as new when the history passes its event budget, and the run reads as one', async () => {
    let modelCalls = 0;
    llm.when((call) => {
      if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes('MARK-long'))) return undefined;
      modelCalls++;
      const done = call.body.messages.filter((m) => m.role === 'tool').length;
      return done < 12 ? { toolCalls: [tc(`c${done}`, 'tavily_search_0', { query: `topic ${done}` })] } : { content: 'Twelve searches later.' };
    });
    const r = await run('long agent', agentCanvas({ sys_prompt: 'MARK-long', tools: [search], max_rounds: 12 }), 'dig deep', { continueAsNewAfterEvents: 40 });
    expect(modelCalls).toBe(13);
    expect(r.result).toMatchObject({ status: 'finished', content: 'Twelve searches later.' });

    // Several executions, one run: the last continued from a checkpoint of the one before.
    const description = await r.handle.describe();
    expect(description.runId).not.toBe(description.raw.workflowExecutionInfo?.firstRunId);
    expect(description.historyLength).toBeLessThan(80);

    // One event log without gaps or repeats: twelve tool calls, one start, one finish.
    const seqs = r.events.filter((e) => e.sub === 0).map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(r.events.filter((e) => e.event === 'tool_call')).toHaveLength(12);
    expect(r.events.filter((e) => e.event === 'workflow_started')).toHaveLength(1);
    expect(r.events.filter((e) => e.event === 'workflow_finished')).toHaveLength(1);
    expect(r.result.usage.calls).toBe(13);
  });
});
