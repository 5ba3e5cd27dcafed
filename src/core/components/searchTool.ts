/**
 * The shape every web-search component shares (Bing, Google, DuckDuckGo, SearXNG, Wikipedia,
 * TavilySearch, TavilyExtract): a tool an Agent can call and a canvas node that runs through the
 * `toolInvoke` activity, whose executor turns the query into results (title, url, snippet) and
 * answers with `formalized_content`, `json` and citations. A new search tool is then its params,
 * its tool description and its thoughts; the executor lives in `src/io/tools`.
 */
import { z } from 'zod';
import type { VariableRef } from '../dsl/refs';
import { paramText } from './common';
import type { ComponentContext, ComponentDef, ExecutionParams, ToolMeta, ToolParamSpec } from './definition';
import { textInputRefs } from './toolInputs';
import { readToolNodeResult, runToolNode } from './tooling';

/** What a search tool shows as its outputs; the executor fills both. */
export const SEARCH_OUTPUTS = ['formalized_content', 'json'] as const;

/** How most search tools describe their query to the model. */
export const KEYWORDS = 'The search keywords: the most important terms of the request (synonyms welcome).';

/** The `query` parameter a model fills, defaulting to the user's question as in RAGFlow. */
export function queryParam(description: string): ToolParamSpec {
  return { type: 'string', description, default: '{sys.query}', required: true };
}

/**
 * One of a few words, RAGFlow's `check_valid_value`: blank means the default, anything else
 * is refused as "`field` should be 'a' or 'b'".
 */
export function oneOf<const T extends readonly [string, ...string[]]>(field: string, values: T, def: T[number]) {
  const message = `${field} should be ${values.map((v) => `'${v}'`).join(' or ')}`;
  return z.preprocess((v) => (v == null || v === '' ? def : v), z.enum(values, { message }));
}

export interface SearchComponentSpec<P extends ExecutionParams> {
  /** RAGFlow's `component_name`. */
  name: string;
  params: z.ZodType<P>;
  /** The function the model sees. */
  tool: ToolMeta;
  /** The `thoughts` text of `node_started`. */
  thoughts(params: P, ctx: ComponentContext): string;
  /**
   * The arguments a canvas node hands its executor; by default its rendered `query` param. The
   * model's arguments replace them when an Agent calls the tool.
   */
  nodeArgs?(params: P, ctx: ComponentContext): Record<string, unknown>;
  /**
   * Whether references in the query defer the node until their components ran. RAGFlow declares
   * the query as an input for DuckDuckGo, SearXNG and Wikipedia only, so only those wait.
   */
  queryIsInput?: boolean;
  /** The text params read as inputs when `queryIsInput` (default: `query`). */
  inputTexts?(params: P): Array<string | undefined>;
  /** Output names, when not formalized_content and json (YahooFinance's `report`). */
  outputs?: readonly string[];
}

/** A search component from its spec; see {@link SearchComponentSpec}. */
export function searchComponent<P extends ExecutionParams & { query?: string }>(spec: SearchComponentSpec<P>): ComponentDef<P> {
  const nodeArgs = spec.nodeArgs ?? ((p: P, ctx: ComponentContext) => ({ query: paramText(ctx, p.query ?? '') }));
  const outputs = spec.outputs ?? SEARCH_OUTPUTS;
  const inputTexts = spec.inputTexts ?? ((p: P) => [p.query]);
  return {
    name: spec.name,
    params: spec.params,
    role: 'plain',
    execution: 'activity',
    outputNames: () => [...outputs],
    inputRefs: (p): VariableRef[] => (spec.queryIsInput ? textInputRefs(...inputTexts(p)) : []),
    // A fresh copy each time, as each definition built its own before.
    tool: { meta: () => ({ ...spec.tool, parameters: { ...spec.tool.parameters } }) },
    thoughts: spec.thoughts,
    run: (p, ctx) => runToolNode(spec.name, ctx, nodeArgs(p, ctx)),
    onResult: (_p, _ctx, result) => readToolNodeResult(result),
  };
}
