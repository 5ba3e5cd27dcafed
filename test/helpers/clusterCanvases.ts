/**
 * The canvases the scale-out, outage and chaos runs drive, and the scripted model behind them.
 * Each run's query carries a marker (`run-marker-<n>`), so every model call is attributed to its
 * run and, by the tool results it carries, to its ReAct round.
 */
import { dsl } from './canvasKit';
import type { RecordedCall, Reply, ScriptedLlm } from './scriptedLlm';

/** Rounds of the research agent: round 1 searches, round 2 answers. */
export const AGENT_ROUNDS = 2;

/** An Agent with a web search tool (Tavily, served by test/helpers/webSearchServer.ts), answer shown in a Message. */
export function researchAgentCanvas(): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['Agent:researcher'] },
    'Agent:researcher': {
      name: 'Agent',
      params: {
        llm_id: 'm@OpenAI',
        sys_prompt: 'You research with the search tool, then answer.',
        max_rounds: 4,
        tools: [{ component_name: 'TavilySearch', name: 'Search', params: { api_key: 'tvly-cluster' } }],
      },
      downstream: ['Message:out'],
    },
    'Message:out': { name: 'Message', params: { content: ['{Agent:researcher@content}'] } },
  });
}

/** A run that pauses at a form (UserFillUp), then has the model summarise the answer. */
export function approvalCanvas(): Record<string, unknown> {
  return dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:approve'] },
    'UserFillUp:approve': {
      name: 'UserFillUp',
      params: { tips: 'Who approves?', inputs: { approver: { type: 'line', optional: false } } },
      downstream: ['LLM:sum'],
    },
    'LLM:sum': {
      name: 'LLM',
      params: { llm_id: 'm@OpenAI', sys_prompt: 'Summarize the approval.', prompts: [{ role: 'user', content: 'Approver: {UserFillUp:approve@approver}' }] },
      downstream: ['Message:m'],
    },
    'Message:m': { name: 'Message', params: { content: ['{LLM:sum@content}'] } },
  });
}

/** The marker a run's model calls carry (from its query or its form answer), or null. */
export function markerOf(call: RecordedCall): string | null {
  for (const m of call.body.messages) {
    const found = typeof m.content === 'string' ? /run-marker-\d+/.exec(m.content) : null;
    if (found) return found[0];
  }
  return null;
}

/** The research agent's round a call belongs to: 1 + the tool results it carries. */
export function roundOf(call: RecordedCall): number {
  return 1 + call.body.messages.filter((m) => m.role === 'tool').length;
}

export function isApprovalCall(call: RecordedCall): boolean {
  return call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes('Summarize the approval'));
}

/**
 * Programs the model for both canvases. `hold` may keep a call open (returning a promise the
 * reply waits for): a test uses it to have calls in flight when it kills a worker.
 */
export function scriptClusterModel(llm: ScriptedLlm, opts: { hold?: (call: RecordedCall) => Promise<unknown> | null; delayMs?: number } = {}): void {
  const delayMs = opts.delayMs ?? 20;
  llm.when((call) => {
    const marker = markerOf(call) ?? 'run-marker-unknown';
    let reply: Reply;
    if (isApprovalCall(call)) reply = { content: `Approved for ${marker} by the manager.`, chunkWords: 2, delayMs };
    else if (roundOf(call) === 1)
      reply = { toolCalls: [{ id: `search-${marker}`, name: 'tavily_search_0', arguments: JSON.stringify({ query: `facts for ${marker}` }) }] };
    else reply = { content: `Research answer for ${marker}: two sources agree.`, chunkWords: 2, delayMs };
    const held = opts.hold?.(call);
    return held ? { until: held, then: reply } : reply;
  });
}
