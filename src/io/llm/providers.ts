/**
 * Model providers. RAGFlow names a model `model@Factory`; every factory here speaks OpenAI's
 * chat completions protocol at a base URL, with its key in an environment variable. A gateway
 * (`LLM_BASE_URL` + `LLM_API_KEY`) overrides them all; `LLM_PROVIDERS` (JSON) adds or changes
 * factories. Pure: the environment is passed in.
 */
import { factoryOf, parseModelId } from '../../core/dsl/modelId';
import { AppError } from '../../errors';

export interface ProviderSpec {
  baseUrl: string;
  /** Environment variable holding the key; providers that need none (local servers) omit it. */
  keyEnv?: string;
  /** An explicit key (from LLM_PROVIDERS); takes precedence over keyEnv. */
  apiKey?: string;
  /** Native function calling (OpenAI `tools`); decides the Agent's `auto` strategy. */
  toolCalling: boolean;
}

/** The built-in table, by RAGFlow factory name. */
export const PROVIDERS: Readonly<Record<string, ProviderSpec>> = {
  OpenAI: { baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', toolCalling: true },
  DeepSeek: { baseUrl: 'https://api.deepseek.com/v1', keyEnv: 'DEEPSEEK_API_KEY', toolCalling: true },
  'Tongyi-Qianwen': { baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1', keyEnv: 'DASHSCOPE_API_KEY', toolCalling: true },
  'ZHIPU-AI': { baseUrl: 'https://open.bigmodel.cn/api/paas/v4', keyEnv: 'ZHIPUAI_API_KEY', toolCalling: true },
  Moonshot: { baseUrl: 'https://api.moonshot.cn/v1', keyEnv: 'MOONSHOT_API_KEY', toolCalling: true },
  SILICONFLOW: { baseUrl: 'https://api.siliconflow.cn/v1', keyEnv: 'SILICONFLOW_API_KEY', toolCalling: true },
  VolcEngine: { baseUrl: 'https://ark.cn-beijing.volces.com/api/v3', keyEnv: 'VOLCENGINE_API_KEY', toolCalling: true },
  OpenRouter: { baseUrl: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY', toolCalling: true },
  Groq: { baseUrl: 'https://api.groq.com/openai/v1', keyEnv: 'GROQ_API_KEY', toolCalling: true },
  Mistral: { baseUrl: 'https://api.mistral.ai/v1', keyEnv: 'MISTRAL_API_KEY', toolCalling: true },
  xAI: { baseUrl: 'https://api.x.ai/v1', keyEnv: 'XAI_API_KEY', toolCalling: true },
  Gemini: { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', keyEnv: 'GEMINI_API_KEY', toolCalling: true },
  Anthropic: { baseUrl: 'https://api.anthropic.com/v1', keyEnv: 'ANTHROPIC_API_KEY', toolCalling: true },
  Ollama: { baseUrl: 'http://127.0.0.1:11434/v1', toolCalling: true },
  'LM-Studio': { baseUrl: 'http://127.0.0.1:1234/v1', toolCalling: false },
  VLLM: { baseUrl: 'http://127.0.0.1:8000/v1', keyEnv: 'VLLM_API_KEY', toolCalling: true },
  Xinference: { baseUrl: 'http://127.0.0.1:9997/v1', toolCalling: true },
  LocalAI: { baseUrl: 'http://127.0.0.1:8080/v1', toolCalling: false },
};

export { parseModelId, type ParsedModelId } from '../../core/dsl/modelId';

export interface LlmSettings {
  /** One OpenAI-compatible gateway for every factory (LLM_BASE_URL). */
  gatewayBaseUrl?: string;
  gatewayApiKey?: string;
  /** The tenant default chat model for an empty llm_id (DEFAULT_LLM_ID). */
  defaultModelId: string;
  /** Factory assumed for bare model names nothing else matches (DEFAULT_LLM_FACTORY). */
  defaultFactory: string;
  /** Extra or changed factories (LLM_PROVIDERS, JSON). */
  overrides: Record<string, Partial<ProviderSpec>>;
  /** Environment to read provider keys from. */
  env: Record<string, string | undefined>;
  /** Label shown when the offline demo model stands in (npm start without any key). */
  demo?: boolean;
}

export interface ResolvedModel {
  model: string;
  factory: string;
  baseUrl: string;
  apiKey: string;
  toolCalling: boolean;
}

/** Reads provider settings from environment variables. */
export function llmSettingsFromEnv(env: Record<string, string | undefined>): LlmSettings {
  let overrides: Record<string, Partial<ProviderSpec>> = {};
  if (env.LLM_PROVIDERS) {
    try {
      overrides = JSON.parse(env.LLM_PROVIDERS) as Record<string, Partial<ProviderSpec>>;
    } catch (err) {
      throw new Error(`LLM_PROVIDERS is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return {
    gatewayBaseUrl: env.LLM_BASE_URL || undefined,
    gatewayApiKey: env.LLM_API_KEY || undefined,
    defaultModelId: env.DEFAULT_LLM_ID || 'deepseek-chat@DeepSeek',
    defaultFactory: env.DEFAULT_LLM_FACTORY || 'OpenAI',
    overrides,
    env,
  };
}

/** True when any model can be reached: a gateway or at least one provider key. */
export function hasAnyModel(settings: LlmSettings): boolean {
  if (settings.gatewayBaseUrl) return true;
  const specs = { ...PROVIDERS, ...settings.overrides };
  return Object.values(specs).some((s) => Boolean(s.apiKey || (s.keyEnv && settings.env[s.keyEnv])));
}

/** Resolves a canvas' `llm_id` to an endpoint, model name and key. */
export function resolveModel(llmId: string, settings: LlmSettings): ResolvedModel {
  const id = llmId.trim() || settings.defaultModelId;
  const parsed = parseModelId(id);
  const factory = factoryOf(id, settings.defaultFactory);
  const base = PROVIDERS[factory];
  const override = settings.overrides[factory];
  const spec: ProviderSpec | undefined = base || override ? Object.assign({ toolCalling: true, baseUrl: '' }, base, override) : undefined;
  if (settings.gatewayBaseUrl) {
    return {
      model: parsed.model,
      factory,
      baseUrl: settings.gatewayBaseUrl,
      apiKey: settings.gatewayApiKey ?? 'unused',
      toolCalling: spec?.toolCalling ?? true,
    };
  }
  if (!spec || !spec.baseUrl) {
    throw new AppError(
      'LLM_BAD_REQUEST',
      `Unknown model provider "${factory}" in llm_id "${id}": set LLM_BASE_URL, or describe the provider in LLM_PROVIDERS`,
      { factory, llmId: id },
    );
  }
  const apiKey = spec.apiKey ?? (spec.keyEnv ? settings.env[spec.keyEnv] : undefined);
  if (spec.keyEnv && !apiKey) {
    throw new AppError('LLM_AUTH', `No API key for ${factory}: set ${spec.keyEnv} (or LLM_BASE_URL/LLM_API_KEY for a gateway)`, {
      factory,
      keyEnv: spec.keyEnv,
    });
  }
  return { model: parsed.model, factory, baseUrl: spec.baseUrl, apiKey: apiKey ?? 'unused', toolCalling: spec.toolCalling };
}

/** Which factories call tools natively (decides an Agent's `auto` strategy), for run settings. */
export function toolCallingTable(settings: LlmSettings): { byFactory: Record<string, boolean>; defaultFactory: string; defaultModelId: string } {
  const byFactory: Record<string, boolean> = {};
  for (const [name, spec] of Object.entries(PROVIDERS)) byFactory[name] = spec.toolCalling;
  for (const [name, spec] of Object.entries(settings.overrides)) if (typeof spec.toolCalling === 'boolean') byFactory[name] = spec.toolCalling;
  return { byFactory, defaultFactory: settings.defaultFactory, defaultModelId: settings.defaultModelId };
}
