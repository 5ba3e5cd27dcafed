/**
 * RAGFlow model ids: `model@Factory`, `model@instance@Factory` (the factory is the last segment),
 * or a bare model name whose factory is guessed from the name. Pure: the engine uses it to pick
 * an Agent strategy, the model activity to find the endpoint.
 */

export interface ParsedModelId {
  model: string;
  /** null when the id names no factory. */
  factory: string | null;
}

export function parseModelId(llmId: string): ParsedModelId {
  const parts = llmId.trim().split('@');
  if (parts.length < 2) return { model: parts[0] ?? '', factory: null };
  return { model: parts[0]!, factory: parts[parts.length - 1]! || null };
}

/** Bare model names RAGFlow canvases use without a factory, by prefix. */
const PREFIX_FACTORIES: ReadonlyArray<[RegExp, string]> = [
  [/^deepseek-/i, 'DeepSeek'],
  [/^(gpt-|o1|o3|o4|chatgpt-)/i, 'OpenAI'],
  [/^qwen/i, 'Tongyi-Qianwen'],
  [/^glm-/i, 'ZHIPU-AI'],
  [/^moonshot-|^kimi-/i, 'Moonshot'],
  [/^mistral|^mixtral|^codestral/i, 'Mistral'],
  [/^gemini-/i, 'Gemini'],
  [/^claude-/i, 'Anthropic'],
  [/^grok-/i, 'xAI'],
];

/** The factory of a model id: named, guessed from a bare name, or `fallback`. */
export function factoryOf(llmId: string, fallback: string): string {
  const parsed = parseModelId(llmId);
  return parsed.factory ?? PREFIX_FACTORIES.find(([re]) => re.test(parsed.model))?.[1] ?? fallback;
}
