/**
 * The text ReAct strategy, for models without native tool calling (the seeds' plan): analyze the
 * task once; then each round the model writes the next step as a JSON list of tool calls (run in
 * parallel) or `complete_task`; the results are reflected on and the loop goes on. A final call
 * writes the answer (the one that streams into a Message). Every step is its own model call.
 */
import { jsonrepair } from 'jsonrepair';
import type { LlmChatResult } from '../callContracts';
import { summarize } from '../tooling';
import type { CallOutcome, ComponentContext, Outcome, WorkNotice, ReferenceAddition } from '../definition';
import { afterReference, ask, finish, withSteeredObservations, withSystem, type AgentMemo, type AgentSettings } from './memo';
import { plannedCalls, prepareCalls, settleRound, type RequestedCall } from './toolCalls';

export const COMPLETE_TASK = 'complete_task';

function toolsDescription(memo: AgentMemo): string {
  const complete = {
    type: 'function',
    function: {
      name: COMPLETE_TASK,
      description: 'Call this when the task is solved, or cannot be solved with the tools: give your final answer.',
      parameters: { type: 'object', properties: { answer: { type: 'string', description: 'The final answer' } }, required: ['answer'] },
    },
  };
  return [complete, ...memo.catalog.map((e) => e.schema)].map((t, i) => `## ${i + 1}. ${t.function.name}\n${JSON.stringify(t, null, 2)}`).join('\n\n');
}

function task(memo: AgentMemo): string {
  return [...memo.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

export function beginReAct(s: AgentSettings, memo: AgentMemo): Outcome {
  const system = [
    'Analyze the task below before any tool is used.',
    '- Restate the goal in one sentence.',
    '- List what is known, what is missing, and which of the tools can supply it.',
    '- Note constraints: format, length, language, sources.',
    '',
    '# Instructions the agent was given',
    memo.system,
    '',
    '# Tools',
    toolsDescription(memo),
  ].join('\n');
  return ask(
    s.p,
    memo,
    'analyze',
    { messages: withSystem(system, [{ role: 'user', content: `Task: ${task(memo)}\n\nAnalyze it.` }]), show: false },
    'analyze the task',
  );
}

function plan(s: AgentSettings, given: AgentMemo, extras: { notices?: WorkNotice[]; reference?: ReferenceAddition } = {}): Outcome {
  // Messages steered in while the step ran are shown with what happened so far.
  const memo = withSteeredObservations(given);
  if (memo.round >= s.p.max_rounds + 1) return final(s, memo, '', extras);
  const system = [
    'You plan the next step of a task and call tools to make progress.',
    '',
    // The agent's own instructions (language, sources to prefer...) bind its tool use too.
    '# Instructions the agent was given',
    memo.system,
    '',
    '# Task analysis',
    memo.analysis,
    '',
    '# Tools (JSON schema)',
    toolsDescription(memo),
    '',
    '# How to answer',
    'Reply with ONLY a JSON array of tool calls, each {"name": <tool name>, "arguments": {...}}. Calls in one array run in parallel.',
    `When the task is solved, or nothing more can be learned, reply [{"name": "${COMPLETE_TASK}", "arguments": {"answer": "..."}}].`,
  ].join('\n');
  const history = memo.observations.length > 0 ? `\n\n# What happened so far\n${memo.observations.join('\n\n')}` : '';
  const user = `Task: ${task(memo)}${history}\n\nWhat is the next step? Reply with the JSON array only.`;
  const next = { ...memo, round: memo.round + 1 };
  return ask(s.p, next, 'plan', { messages: withSystem(system, [{ role: 'user', content: user }]), show: false }, `plan step ${next.round}`, extras);
}

function final(s: AgentSettings, given: AgentMemo, draft: string, extras: { notices?: WorkNotice[]; reference?: ReferenceAddition } = {}): Outcome {
  const memo = withSteeredObservations(given);
  const findings = memo.observations.length > 0 ? `\n\nWhat the tools found:\n${memo.observations.join('\n\n')}` : '';
  const draftNote = draft ? `\n\nDraft answer:\n${draft}` : '';
  const messages = [
    ...memo.messages.slice(0, -1),
    { role: 'user' as const, content: `${task(memo)}${findings}${draftNote}\n\nWrite the final answer to the request above.` },
  ];
  return ask(s.p, memo, 'final', { messages: withSystem(memo.system, messages) }, 'final answer', extras);
}

/** Reads the model's plan: a JSON array (or one object) of {name, arguments}. */
export function parsePlan(text: string): { ok: true; calls: RequestedCall[] } | { ok: false; error: string } {
  const cleaned = text
    .replace(/^[\s\S]*<\/think>/, '')
    .replace(/<\|stop\|>/g, '')
    .trim();
  const start = cleaned.search(/[[{]/);
  if (start < 0) return { ok: false, error: 'no JSON found' };
  const end = Math.max(cleaned.lastIndexOf(']'), cleaned.lastIndexOf('}'));
  let value: unknown;
  try {
    value = JSON.parse(jsonrepair(cleaned.slice(start, end + 1)));
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  const items = Array.isArray(value) ? value : [value];
  const calls: RequestedCall[] = [];
  for (const [i, item] of items.entries()) {
    if (typeof item !== 'object' || item === null || typeof (item as { name?: unknown }).name !== 'string')
      return { ok: false, error: `item ${i} has no "name"` };
    const args = (item as { arguments?: unknown }).arguments;
    calls.push({
      id: `react_${i}`,
      fn: (item as { name: string }).name,
      args: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : typeof args === 'string' ? args : {},
    });
  }
  return { ok: true, calls };
}

function onPlan(s: AgentSettings, ctx: ComponentContext, memo: AgentMemo, answer: LlmChatResult): Outcome {
  const parsed = parsePlan(answer.content);
  if (!parsed.ok) {
    const note = `Step ${memo.round}: the reply was not a JSON array of tool calls (${parsed.error}): ${summarize(answer.content, 300)}`;
    return plan(s, { ...memo, observations: [...memo.observations, note] });
  }
  const done = parsed.calls.find((c) => c.fn === COMPLETE_TASK);
  if (done) {
    const args = typeof done.args === 'object' ? done.args : {};
    return final(s, memo, typeof args.answer === 'string' ? args.answer : '');
  }
  const prepared = prepareCalls(parsed.calls, memo.catalog);
  const next = { ...memo, prepared };
  const planned = plannedCalls(prepared, memo.catalog, ctx, s.mcpTimeoutMs);
  if (planned.length === 0) return onTools(s, next, []);
  return { kind: 'calls', calls: planned, memo: { ...next, phase: 'tools' } };
}

function onTools(s: AgentSettings, memo: AgentMemo, outcomes: CallOutcome[]): Outcome {
  const settled = settleRound(memo.prepared, outcomes, memo.catalog, memo.round);
  const observation = `Step ${memo.round} results:\n${settled.results.map((r) => `- ${r.fn}: ${r.text}`).join('\n')}`;
  const next: AgentMemo = afterReference(
    { ...memo, prepared: [], uses: [...memo.uses, ...settled.uses], observations: [...memo.observations, observation] },
    settled.reference,
  );
  const reflect = `Goal: ${task(memo)}\n\n${observation}\n\nReflect: did these results answer what was missing? What is still unknown? Is another step worth it? Be brief.`;
  return ask(s.p, next, 'reflect', { messages: withSystem(memo.system, [{ role: 'user', content: reflect }]), show: false }, `reflect on step ${memo.round}`, {
    notices: settled.notices,
    ...(settled.reference ? { reference: settled.reference } : {}),
  });
}

export function continueReAct(s: AgentSettings, ctx: ComponentContext, memo: AgentMemo, result: unknown): Outcome {
  switch (memo.phase) {
    case 'analyze':
      return plan(s, { ...memo, analysis: (result as LlmChatResult).content });
    case 'plan':
      return onPlan(s, ctx, memo, result as LlmChatResult);
    case 'tools':
      return onTools(s, memo, result as CallOutcome[]);
    case 'reflect':
      return plan(s, { ...memo, observations: [...memo.observations, `Reflection: ${(result as LlmChatResult).content}`] });
    case 'final':
    case 'structured':
      return finish(s.p, memo, (result as LlmChatResult).content);
    default:
      return { kind: 'error', message: `agent: unexpected step ${memo.phase}` };
  }
}
