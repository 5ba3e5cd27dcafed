/**
 * The tools an Agent offers its model: tool components, other Agents (sub-agents), and the tools
 * of MCP servers. Function names follow RAGFlow (`<tool name>_<index>`), so canvases that name
 * tools in their prompts keep working.
 */
import type { PathSegment } from '../../dsl/jsonPath';
import type { McpToolInfo, ToolSchema } from '../callContracts';
import { functionName, toolSchema } from '../tooling';
import type { ComponentContext, ToolMeta } from '../definition';

export interface CatalogEntry {
  /** The function name the model uses. */
  fn: string;
  schema: ToolSchema;
  kind: 'component' | 'agent' | 'mcp';
  /** The tool's name as the canvas shows it (events, traces). */
  name: string;
  componentName?: string;
  /** Where the tool's params sit in the stored canvas (component tools and sub-agents). */
  paramsPath?: PathSegment[];
  /** A component tool's params as the DSL lists them (secrets redacted). */
  toolParams?: Record<string, unknown>;
  /** A sub-agent's params and its RAGFlow nested id (`Agent:Lead-->Web_Search_Specialist`). */
  agentParams?: Record<string, unknown>;
  nestedId?: string;
  mcpId?: string;
  mcpTool?: string;
}

export interface ToolSpec {
  component_name: string;
  name?: string;
  params: Record<string, unknown>;
}

export interface McpSpec {
  mcp_id: string;
  tools: Record<string, unknown>;
}

/** What a sub-agent tool takes (RAGFlow's AgentParam meta). */
function subAgentMeta(name: string, params: Record<string, unknown>): ToolMeta {
  const description = typeof params.description === 'string' && params.description.trim() ? params.description : 'An agent for a specific task.';
  const userPrompt = typeof params.user_prompt === 'string' && params.user_prompt ? params.user_prompt : 'The order to send to the agent.';
  return {
    name,
    description,
    parameters: {
      user_prompt: { type: 'string', description: userPrompt, required: true },
      reasoning: { type: 'string', description: 'Why you call this agent and what you expect back.', required: true },
      context: {
        type: 'string',
        description: 'Everything the agent needs to know: background, facts found so far, decisions, constraints. Make it self-contained.',
        required: true,
      },
    },
  };
}

function mcpMeta(name: string, info: Partial<McpToolInfo>): ToolSchema {
  const given = typeof info.inputSchema === 'object' && info.inputSchema !== null ? info.inputSchema : { type: 'object', properties: {} };
  // Some OpenAI-compatible providers reject a `$schema` key in function parameters.
  const { $schema: _dialect, ...parameters } = given as Record<string, unknown>;
  void _dialect;
  return { type: 'function', function: { name, description: info.description ?? '', parameters } };
}

export interface Catalog {
  entries: CatalogEntry[];
  /** Tools that could not be offered, with why (shown to operators in the node's outputs). */
  problems: string[];
  /** MCP servers whose tool list must be fetched first (the DSL does not list them). */
  unlisted: string[];
}

/**
 * Builds the catalog. `listed` holds tool lists fetched from MCP servers that the DSL did not
 * describe; without them those servers are reported in `unlisted`.
 */
export function buildCatalog(
  ctx: ComponentContext,
  tools: ToolSpec[],
  mcp: McpSpec[],
  listed: Record<string, McpToolInfo[]> = {},
  toolsKey = 'tools',
): Catalog {
  const entries: CatalogEntry[] = [];
  const problems: string[] = [];
  const unlisted: string[] = [];
  tools.forEach((t, i) => {
    const paramsPath: PathSegment[] = [...ctx.paramsPath, toolsKey, i, 'params'];
    if (t.component_name === 'Agent') {
      const label = (t.name ?? 'agent').trim() || 'agent';
      const fn = `${functionName(label.replace(/ /g, '_'))}_${i}`;
      entries.push({
        fn,
        schema: toolSchema(fn, subAgentMeta(fn, t.params)),
        kind: 'agent',
        name: label,
        paramsPath,
        agentParams: t.params,
        nestedId: `${ctx.id}-->${label.replace(/ /g, '_')}`,
      });
      return;
    }
    const described = ctx.describeTool(t.component_name, t.params);
    if ('error' in described) {
      problems.push(`tool ${i} (${t.component_name}): ${described.error}`);
      return;
    }
    const fn = `${functionName(described.meta.name)}_${i}`;
    entries.push({
      fn,
      schema: toolSchema(fn, described.meta),
      kind: 'component',
      name: t.name ?? t.component_name,
      componentName: t.component_name,
      paramsPath,
      toolParams: t.params,
    });
  });
  let index = tools.length;
  for (const server of mcp) {
    const fromDsl = Object.entries(server.tools ?? {});
    const known: Array<[string, Partial<McpToolInfo>]> =
      fromDsl.length > 0 ? fromDsl.map(([name, meta]) => [name, (meta ?? {}) as Partial<McpToolInfo>]) : (listed[server.mcp_id] ?? []).map((t) => [t.name, t]);
    if (known.length === 0 && !listed[server.mcp_id]) {
      unlisted.push(server.mcp_id);
      continue;
    }
    for (const [toolName, meta] of known) {
      const fn = `${functionName(toolName)}_${index++}`;
      entries.push({ fn, schema: mcpMeta(fn, meta), kind: 'mcp', name: toolName, mcpId: server.mcp_id, mcpTool: toolName });
    }
  }
  return { entries, problems, unlisted };
}
