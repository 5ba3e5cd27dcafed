/**
 * Agent: RAGFlow's Agent component. Without tools it behaves exactly as an LLM (RAGFlow
 * delegates to `LLM._invoke_async` in that case).
 */
import { z } from 'zod';
import { planModelCall, readModelAnswer } from './LLM';
import { nonNegInt, str } from './common';
import { buildPrompt, llmInputRefs, llmParamsShape, llmThoughts, structuredSchema } from './llmPrompt';
import type { ComponentDef } from './types';

export const ToolSpecSchema = z.looseObject({
  component_name: z.string().min(1, 'component_name must not be empty'),
  name: z.string().optional(),
  params: z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown())),
});

export const McpSpecSchema = z.looseObject({
  mcp_id: z.string().min(1, 'mcp_id must not be empty'),
  tools: z.preprocess((v) => (v === null || v === undefined ? {} : v), z.record(z.string(), z.unknown())),
});

export const AgentParams = z.looseObject({
  ...llmParamsShape,
  tools: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(ToolSpecSchema)),
  mcp: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(McpSpecSchema)),
  max_rounds: nonNegInt(5),
  user_prompt: str(''),
  visual_files_var: z.string().nullish(),
});

export type AgentParams = z.infer<typeof AgentParams>;

function hasTools(p: AgentParams): boolean {
  return p.tools.length > 0 || p.mcp.length > 0;
}

export const Agent: ComponentDef<AgentParams> = {
  name: 'Agent',
  params: AgentParams,
  role: 'plain',
  execution: 'activity',
  streamsContent: (p) => structuredSchema(p.outputs) === null,
  outputNames: (p) => (structuredSchema(p.outputs) ? ['content', 'structured'] : ['content']),
  inputRefs: (p) => llmInputRefs(p),
  nested: (p) => p.tools.map((t, i) => ({ path: ['tools', i], componentName: t.component_name, params: t.params })),
  thoughts: (p, ctx) => llmThoughts(buildPrompt(p, ctx)),
  run(p, ctx) {
    if (hasTools(p)) {
      return { kind: 'error', message: 'This Agent has tools or MCP servers, and tool calling is not available in this build yet' };
    }
    return planModelCall(p, ctx);
  },
  onResult: (p, _ctx, result, memo) => readModelAnswer(p, result, memo),
};
