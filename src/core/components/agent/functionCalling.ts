/**
 * The function-calling strategy (what RAGFlow does today): the model gets OpenAI `tools`; each
 * answer with tool calls runs them (in parallel, one activity or child workflow each) and feeds
 * the results back; an answer without tool calls is the final answer. After max_rounds + 1
 * tool-enabled calls the model must answer without tools.
 */
import type { LlmChatResult } from '../callContracts';
import type { CallOutcome, ComponentContext, Outcome, WorkNotice, ReferenceAddition } from '../definition';
import { afterReference, ask, finish, roundsExhausted, withSteeredMessages, withSystem, type AgentMemo, type AgentSettings } from './memo';
import { plannedCalls, prepareCalls, settleRound } from './toolCalls';

function askModel(s: AgentSettings, given: AgentMemo, extras: { notices?: WorkNotice[]; reference?: ReferenceAddition } = {}): Outcome {
  const { p } = s;
  // Messages steered in while the round ran join the conversation before this request.
  const memo = withSteeredMessages(given);
  if (memo.round >= p.max_rounds + 1) {
    const messages = [...memo.messages, { role: 'user' as const, content: roundsExhausted(p.max_rounds) }];
    return ask(p, { ...memo, messages }, 'final', { messages: withSystem(memo.system, messages) }, 'final answer (tool rounds used up)', extras);
  }
  const next = { ...memo, round: memo.round + 1 };
  return ask(
    p,
    next,
    'model',
    { messages: withSystem(memo.system, memo.messages), tools: memo.catalog.map((e) => e.schema) },
    `agent round ${next.round}`,
    extras,
  );
}

export function beginFunctionCalling(s: AgentSettings, memo: AgentMemo): Outcome {
  return askModel(s, memo);
}

/** The model answered: run its tool calls, or finish. */
function onModel(s: AgentSettings, ctx: ComponentContext, memo: AgentMemo, answer: LlmChatResult): Outcome {
  if (answer.toolCalls.length === 0) {
    // A message steered in while the model answered is not left unread: the answer joins the
    // conversation and the model is asked again with it.
    if (memo.steered?.length) return askModel(s, { ...memo, messages: [...memo.messages, { role: 'assistant', content: answer.content }] });
    return finish(s.p, memo, answer.content);
  }
  const assistant = {
    role: 'assistant' as const,
    content: answer.content,
    tool_calls: answer.toolCalls.map((t) => ({ id: t.id, type: 'function' as const, function: { name: t.name, arguments: t.arguments } })),
  };
  const prepared = prepareCalls(
    answer.toolCalls.map((t) => ({ id: t.id, fn: t.name, args: t.arguments })),
    memo.catalog,
  );
  const next: AgentMemo = { ...memo, messages: [...memo.messages, assistant], prepared };
  const planned = plannedCalls(prepared, memo.catalog, ctx, s.mcpTimeoutMs);
  if (planned.length === 0) return onTools(s, next, []);
  return { kind: 'calls', calls: planned, memo: { ...next, phase: 'tools' } };
}

/** The tools answered: give the results to the model and ask again. */
function onTools(s: AgentSettings, memo: AgentMemo, outcomes: CallOutcome[]): Outcome {
  const settled = settleRound(memo.prepared, outcomes, memo.catalog, memo.round);
  const toolMessages = settled.results.map((r) => ({ role: 'tool' as const, tool_call_id: r.id, content: r.text }));
  const next: AgentMemo = afterReference(
    { ...memo, messages: [...memo.messages, ...toolMessages], prepared: [], uses: [...memo.uses, ...settled.uses] },
    settled.reference,
  );
  return askModel(s, next, { notices: settled.notices, ...(settled.reference ? { reference: settled.reference } : {}) });
}

export function continueFunctionCalling(s: AgentSettings, ctx: ComponentContext, memo: AgentMemo, result: unknown): Outcome {
  switch (memo.phase) {
    case 'model':
      return onModel(s, ctx, memo, result as LlmChatResult);
    case 'tools':
      return onTools(s, memo, result as CallOutcome[]);
    case 'final':
    case 'structured':
      return finish(s.p, memo, (result as LlmChatResult).content);
    default:
      return { kind: 'error', message: `agent: unexpected step ${memo.phase}` };
  }
}
