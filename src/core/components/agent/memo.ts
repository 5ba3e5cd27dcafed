/**
 * The state an Agent carries between its calls (it lives in the run state, so a worker crash
 * resumes the loop where it was), and the steps both strategies share: asking the model, and
 * finishing with a plain or a structured answer.
 */
import type { ChatMessage, LlmChatRequest, McpToolInfo } from '../callContracts';
import { withCitations } from '../citations';
import { genConf, parseModelJson, structuredOutputInstructions, type LlmParams } from '../llmPrompt';
import type { Outcome, WorkNotice, ReferenceAddition } from '../definition';
import type { CatalogEntry } from './catalog';
import type { PreparedCall, ToolUse } from './toolCalls';

export type AgentStrategy = 'function_calling' | 'react';

export interface AgentMemo {
  strategy: AgentStrategy;
  phase: 'list' | 'model' | 'tools' | 'final' | 'structured' | 'analyze' | 'plan' | 'reflect';
  /** Tool-enabled model calls (function calling) or plans (ReAct) so far. */
  round: number;
  system: string;
  /** The conversation after the system prompt. */
  messages: ChatMessage[];
  catalog: CatalogEntry[];
  problems: string[];
  /** Tool calls of the round in flight. */
  prepared: PreparedCall[];
  uses: ToolUse[];
  /** Tool lists fetched from MCP servers the DSL did not describe. */
  listed: Record<string, McpToolInfo[]>;
  /** ReAct: the task analysis and what was observed so far. */
  analysis: string;
  observations: string[];
  schema: Record<string, unknown> | null;
  /** Structured answer: reformatting attempts so far. */
  attempt: number;
  /** `cite` is on and this is not a sub-agent: tool results with chunks turn citations on. */
  citeAllowed: boolean;
  /** Messages steered into the run (engine/steer.ts) not yet given to the model; absent in older states. */
  steered?: string[];
}

/** The memo with its steered messages moved into the conversation as user messages (function calling). */
export function withSteeredMessages(memo: AgentMemo): AgentMemo {
  if (!memo.steered?.length) return memo;
  const { steered, ...rest } = memo;
  return { ...rest, messages: [...memo.messages, ...steered.map((content) => ({ role: 'user' as const, content }))] };
}

/** The memo with its steered messages moved into what the ReAct prompts show (its task stays the first request). */
export function withSteeredObservations(memo: AgentMemo): AgentMemo {
  if (!memo.steered?.length) return memo;
  const { steered, ...rest } = memo;
  return { ...rest, observations: [...memo.observations, ...steered.map((m) => `The user added while you worked: ${m}`)] };
}

/** The memo after a round whose tools found citable chunks: the system prompt asks for citations. */
export function afterReference(memo: AgentMemo, reference: ReferenceAddition | undefined): AgentMemo {
  if (!memo.citeAllowed || !reference || Object.keys(reference.chunks).length === 0) return memo;
  return { ...memo, system: withCitations(memo.system, true) };
}

export interface AgentSettings {
  p: LlmParams & { max_rounds: number };
  mcpTimeoutMs: number;
}

/** A model call of the agent's loop. */
export function ask(
  p: LlmParams,
  memo: AgentMemo,
  phase: AgentMemo['phase'],
  request: Partial<LlmChatRequest> & Pick<LlmChatRequest, 'messages'>,
  summary: string,
  extras: { notices?: WorkNotice[]; reference?: ReferenceAddition } = {},
): Outcome {
  const full: LlmChatRequest = { llmId: p.llm_id, gen: genConf(p), ...request };
  return { kind: 'call', call: { activity: 'llmChat', request: full }, summary, memo: { ...memo, phase }, ...extras };
}

export function withSystem(system: string, messages: ChatMessage[]): ChatMessage[] {
  return system.trim() ? [{ role: 'system', content: system }, ...messages] : [...messages];
}

function outputs(memo: AgentMemo, content: string, structured?: unknown): Record<string, unknown> {
  return {
    content,
    use_tools: memo.uses,
    ...(structured !== undefined ? { structured } : {}),
    ...(memo.problems.length > 0 ? { tool_problems: memo.problems } : {}),
  };
}

/** Ends the loop with the model's answer (parsed when the node has a structured output). */
export function finish(p: LlmParams, memo: AgentMemo, content: string, extras: { notices?: WorkNotice[]; reference?: ReferenceAddition } = {}): Outcome {
  if (!memo.schema) return { kind: 'done', outputs: outputs(memo, content), ...extras };
  const parsed = parseModelJson(content);
  if (parsed.ok) return { kind: 'done', outputs: outputs(memo, content, parsed.value), ...extras };
  if (memo.attempt >= p.max_retries) {
    return { kind: 'error', message: `The agent's answer could not be parsed as JSON after ${memo.attempt + 1} attempt(s): ${parsed.error}` };
  }
  // RAGFlow reformats the answer with a dedicated call rather than re-running the whole loop.
  const system = `${structuredOutputInstructions(memo.schema)}\nIMPORTANT: output only valid JSON, no Markdown, no extra text.`;
  return ask(
    p,
    { ...memo, attempt: memo.attempt + 1 },
    'structured',
    { messages: withSystem(system, [{ role: 'user', content }]), json: true, show: false },
    'reformat the answer as JSON',
    extras,
  );
}

/** The note that ends the tool rounds. */
export function roundsExhausted(maxRounds: number): string {
  return `You have used all ${maxRounds + 1} rounds of tool calls. Do not call tools any more: answer now with the information you have.`;
}
