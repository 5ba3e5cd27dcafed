/**
 * Agent: RAGFlow's Agent component. Without tools it is an LLM call (as RAGFlow delegates to
 * `LLM._invoke_async`). With tools (tool components, other Agents, MCP servers) it runs a loop
 * of model rounds and tool calls — native function calling, or text ReAct for models without
 * it (`strategy`: auto picks by the model's capability) — each call its own activity, the loop
 * state in the run, so a crash repeats at most the call in flight.
 */
import { z } from 'zod';
import { hasLegacyStructure, planModelCall, readModelAnswer } from './LLM';
import type { McpToolInfo } from './callContracts';
import { nonNegInt, str } from './common';
import { buildPrompt, llmInputRefs, llmParamsShape, llmThoughts, promptProblem, structuredOutputInstructions, structuredSchema } from './llmPrompt';
import { buildCatalog } from './agent/catalog';
import { beginFunctionCalling, continueFunctionCalling } from './agent/functionCalling';
import type { AgentMemo, AgentSettings } from './agent/memo';
import { beginReAct, continueReAct } from './agent/react';
import type { CallOutcome, ComponentContext, ComponentDef, Outcome } from './definition';
import { lazySchema } from '../dsl/lazySchema';

export const ToolSpecSchema = lazySchema(() =>
  z.looseObject({
    component_name: z.string().min(1, 'component_name must not be empty'),
    name: z.string().optional(),
    params: z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown())),
  }),
);

export const McpSpecSchema = lazySchema(() =>
  z.looseObject({
    mcp_id: z.string().min(1, 'mcp_id must not be empty'),
    tools: z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown())),
  }),
);

/**
 * Early RAGFlow agent canvases list tools under `llm_enabled_tools` (the shipped example
 * `categorize_and_agent_with_tavily` does); they are read as `tools`, and `tools_key` remembers
 * where they sit so tool activities find their stored params.
 */
function legacyTools(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const r = raw as Record<string, unknown>;
  const hasTools = Array.isArray(r.tools) && r.tools.length > 0;
  if (hasTools || !Array.isArray(r.llm_enabled_tools) || r.llm_enabled_tools.length === 0) return raw;
  return { ...r, tools: r.llm_enabled_tools, tools_key: 'llm_enabled_tools' };
}

const AgentParamsShape = lazySchema(() =>
  z.looseObject({
    ...llmParamsShape,
    tools: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(ToolSpecSchema)),
    mcp: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(McpSpecSchema)),
    max_rounds: nonNegInt(5),
    user_prompt: str(''),
    visual_files_var: z.string().nullish(),
    /** auto (by the model's capability), function_calling, or react. */
    strategy: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'auto' : v),
      z.enum(['auto', 'function_calling', 'react'], { message: "strategy must be 'auto', 'function_calling' or 'react'" }),
    ),
    /** Seconds an MCP tool call may take (RAGFlow hard-codes 10). */
    mcp_timeout: z.preprocess((v) => (v === null || v === undefined || v === '' ? 60 : v), z.number().positive('must be more than 0')),
    tools_key: z.enum(['tools', 'llm_enabled_tools']).default('tools'),
  }),
);

export const AgentParams = lazySchema(() => z.preprocess(legacyTools, AgentParamsShape));

export type AgentParams = z.infer<typeof AgentParams>;

function isAgentMemo(memo: unknown): memo is AgentMemo {
  return typeof memo === 'object' && memo !== null && 'strategy' in memo;
}

function settings(p: AgentParams): AgentSettings {
  return { p, mcpTimeoutMs: p.mcp_timeout * 1000 };
}

function begin(p: AgentParams, memo: AgentMemo): Outcome {
  return memo.strategy === 'react' ? beginReAct(settings(p), memo) : beginFunctionCalling(settings(p), memo);
}

function start(p: AgentParams, ctx: ComponentContext): Outcome {
  const catalog = buildCatalog(ctx, p.tools, p.mcp, {}, p.tools_key);
  if (catalog.entries.length === 0 && catalog.unlisted.length === 0) {
    const plain = planModelCall(p, ctx);
    return catalog.problems.length > 0 && plain.kind === 'error' ? { kind: 'error', message: `${plain.message}; ${catalog.problems.join('; ')}` } : plain;
  }
  const built = buildPrompt(p, ctx);
  const problem = promptProblem(built.messages);
  if (problem) return { kind: 'error', message: problem };
  const schema = structuredSchema(p.outputs);
  const memo: AgentMemo = {
    strategy: p.strategy === 'auto' ? (ctx.supportsToolCalling(p.llm_id) ? 'function_calling' : 'react') : p.strategy,
    phase: 'list',
    round: 0,
    system: schema ? built.system + structuredOutputInstructions(schema) : built.system,
    messages: built.messages,
    catalog: catalog.entries,
    problems: catalog.problems,
    prepared: [],
    uses: [],
    listed: {},
    analysis: '',
    observations: [],
    schema,
    attempt: 0,
    citeAllowed: p.cite !== false && !ctx.id.includes('-->'),
  };
  if (catalog.unlisted.length > 0) {
    // The DSL names MCP servers without their tools: list them once for this run.
    return {
      kind: 'calls',
      calls: catalog.unlisted.map((mcpId) => ({
        call: { activity: 'mcpListTools', request: { runId: ctx.runId, mcpId, timeoutMs: p.mcp_timeout * 1000 } },
        summary: `list the tools of MCP server ${mcpId}`,
      })),
      memo,
      inputs: built.inputs,
    };
  }
  const outcome = begin(p, memo);
  return { ...outcome, inputs: built.inputs };
}

function onListed(p: AgentParams, ctx: ComponentContext, memo: AgentMemo, outcomes: CallOutcome[]): Outcome {
  const unlisted = buildCatalog(ctx, p.tools, p.mcp, {}, p.tools_key).unlisted;
  const listed: Record<string, McpToolInfo[]> = { ...memo.listed };
  const problems = [...memo.problems];
  unlisted.forEach((mcpId, i) => {
    const o = outcomes[i];
    if (o?.ok) listed[mcpId] = (o.value as { tools: McpToolInfo[] }).tools;
    else {
      listed[mcpId] = [];
      problems.push(`MCP server ${mcpId}: ${o ? o.error : 'no answer'}`);
    }
  });
  const catalog = buildCatalog(ctx, p.tools, p.mcp, listed, p.tools_key);
  return begin(p, { ...memo, listed, catalog: catalog.entries, problems: [...problems, ...catalog.problems] });
}

export const Agent: ComponentDef<AgentParams> = {
  name: 'Agent',
  params: AgentParams,
  legacyParams: { llm_enabled_tools: 'tools' },
  role: 'plain',
  execution: 'activity',
  streamsContent: (p) => structuredSchema(p.outputs) === null,
  outputNames: (p) => [
    ...(structuredSchema(p.outputs) ? ['content', 'structured', 'use_tools'] : ['content', 'use_tools']),
    ...(hasLegacyStructure(p) ? ['structured_content'] : []),
  ],
  inputRefs: (p) => llmInputRefs(p),
  nested: (p) => p.tools.map((t, i) => ({ path: [p.tools_key, i], componentName: t.component_name, params: t.params })),
  thoughts: (p, ctx) => llmThoughts(buildPrompt(p, ctx)),
  run: (p, ctx) => start(p, ctx),
  onResult(p, ctx, result, memo) {
    if (!isAgentMemo(memo)) return readModelAnswer(p, result, memo);
    if (memo.phase === 'list') return onListed(p, ctx, memo, result as CallOutcome[]);
    return memo.strategy === 'react' ? continueReAct(settings(p), ctx, memo, result) : continueFunctionCalling(settings(p), ctx, memo, result);
  },
};
