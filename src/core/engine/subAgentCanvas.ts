/**
 * An Agent called as a tool by another Agent runs as a run of its own (a child workflow). This
 * module turns the call into that run's canvas and start input, and the finished run back into
 * the tool result. Pure, like the rest of the engine.
 */
import type { SubAgentRequest, SubAgentResult } from '../components/callContracts';
import type { RunStartInput } from './run';
import { emptySession, type RunState } from './state';

/** The id the sub-agent's node has in its canvas: RAGFlow's nested id (`Agent:Lead-->Researcher`). */
export function subAgentNodeId(request: SubAgentRequest): string {
  return request.componentId;
}

/** The order the calling model gave, as RAGFlow words it for the sub-agent's user prompt. */
export function subAgentPrompt(args: Record<string, unknown>): string {
  const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const order = text(args.user_prompt);
  let prompt = '';
  if (text(args.reasoning)) prompt += `\nREASONING:\n${text(args.reasoning)}\n`;
  if (text(args.context)) prompt += `\nCONTEXT:\n${text(args.context)}\n`;
  return prompt ? `${prompt}\nQUERY:\n${order}\n` : order;
}

/**
 * The sub-agent's canvas: Begin → the Agent, whose params point back (`_origins`) to where they
 * sit in the parent's stored canvas, so its own tools read their real params from there.
 */
export function subAgentDsl(request: SubAgentRequest): Record<string, unknown> {
  const id = subAgentNodeId(request);
  const params: Record<string, unknown> = { ...request.params };
  if (subAgentPrompt(request.args).trim()) params.prompts = [{ role: 'user', content: subAgentPrompt(request.args) }];
  return {
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: [id], upstream: [] },
      [id]: { obj: { component_name: 'Agent', params }, downstream: [], upstream: ['begin'] },
    },
    globals: {},
    history: [],
    path: [],
    retrieval: [],
    _origins: { [id]: request.paramsPath },
  };
}

/** The sub-agent run's start: the parent's globals, no new conversation turn. */
export function subAgentStart(request: SubAgentRequest, ids: { runId: string; messageId: string }, toolCalling?: RunStartInput['toolCalling']): RunStartInput {
  return {
    runId: ids.runId,
    messageId: ids.messageId,
    query: request.globals['sys.query'] ?? '',
    nested: true,
    session: { ...emptySession(), globals: { ...request.globals } },
    ...(toolCalling ? { toolCalling } : {}),
  };
}

/** The tool result for the calling Agent, or why the sub-agent produced none. */
export function subAgentOutcome(
  request: SubAgentRequest,
  state: RunState,
  childTaskId: string,
  elapsedMs: number,
): { ok: true; result: SubAgentResult } | { ok: false; error: string } {
  if (state.status !== 'finished') return { ok: false, error: state.error ?? `the sub-agent ended ${state.status}` };
  const out = state.outputs[subAgentNodeId(request)] ?? {};
  const content = out.structured !== undefined && out.structured !== null ? JSON.stringify(out.structured) : String(out.content ?? '');
  return { ok: true, result: { content, childTaskId, usage: { ...state.usage }, elapsedMs } };
}
