import { describe, expect, it } from 'vitest';
import { isAppError } from '../../errors';
import { llmSettingsFromEnv, parseModelId, resolveModel } from './providers';

/** The error `run` throws; fails the test when it throws nothing. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  return expect.unreachable('expected an error, but the call returned');
}

describe('model ids', () => {
  it('splits RAGFlow model ids, the factory being the last segment', () => {
    expect(parseModelId('deepseek-chat@DeepSeek')).toEqual({ model: 'deepseek-chat', factory: 'DeepSeek' });
    expect(parseModelId('deepseek-v4-pro@default@DeepSeek')).toEqual({ model: 'deepseek-v4-pro', factory: 'DeepSeek' });
    expect(parseModelId('agnuxo/cajal-4b-p2pclaw@Ollama')).toEqual({ model: 'agnuxo/cajal-4b-p2pclaw', factory: 'Ollama' });
    expect(parseModelId('deepseek-chat')).toEqual({ model: 'deepseek-chat', factory: null });
  });

  it('resolves a factory to its endpoint and key', () => {
    const s = llmSettingsFromEnv({ DEEPSEEK_API_KEY: 'k1' });
    expect(resolveModel('deepseek-chat@DeepSeek', s)).toMatchObject({ baseUrl: 'https://api.deepseek.com/v1', apiKey: 'k1', model: 'deepseek-chat' });
    expect(resolveModel('deepseek-chat', s)).toMatchObject({ factory: 'DeepSeek' });
    expect(resolveModel('', s)).toMatchObject({ factory: 'DeepSeek', model: 'deepseek-chat' });
  });

  it('sends every factory to the gateway when LLM_BASE_URL is set', () => {
    const s = llmSettingsFromEnv({ LLM_BASE_URL: 'http://gw/v1', LLM_API_KEY: 'g' });
    expect(resolveModel('qwen-turbo@Tongyi-Qianwen', s)).toMatchObject({ baseUrl: 'http://gw/v1', apiKey: 'g', model: 'qwen-turbo' });
    expect(resolveModel('x@NobodyKnows', s)).toMatchObject({ baseUrl: 'http://gw/v1' });
  });

  it('explains a missing key', () => {
    const missingKey = thrownBy(() => resolveModel('gpt-4o@OpenAI', llmSettingsFromEnv({})));
    expect(isAppError(missingKey, 'LLM_AUTH')).toBe(true);
    expect(String(missingKey)).toMatch(/OPENAI_API_KEY/);
  });

  it('refuses an unknown factory as a bad request naming it and the two ways to describe it', () => {
    const unknown = thrownBy(() => resolveModel('m@Mystery', llmSettingsFromEnv({})));
    expect(isAppError(unknown, 'LLM_BAD_REQUEST')).toBe(true);
    expect(String(unknown)).toMatch(/"Mystery".*LLM_BASE_URL.*LLM_PROVIDERS/);
  });

  it('accepts providers from LLM_PROVIDERS', () => {
    const s = llmSettingsFromEnv({ LLM_PROVIDERS: JSON.stringify({ Local: { baseUrl: 'http://127.0.0.1:9/v1', toolCalling: false } }) });
    expect(resolveModel('tiny@Local', s)).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', toolCalling: false });
    expect(() => llmSettingsFromEnv({ LLM_PROVIDERS: '{oops' })).toThrow(/LLM_PROVIDERS/);
  });
});
