/** Model call traces (src/io/llm/callTrace.ts): secrets redacted, long contents folded, files by reference. */
import { describe, expect, it } from 'vitest';
import { configuredSecrets, FOLD_CHARS, textRedactor, tracedRequest } from './callTrace';

describe('a model call trace', () => {
  const redact = textRedactor(['configured-key-123456', 'short']);

  it('redacts configured secret values, Authorization headers, bearer tokens, sk- keys and secret-named fields', () => {
    expect(redact('use configured-key-123456 here')).toBe('use __secret__ here');
    expect(redact('Authorization: Basic dXNlcjpwYXNz')).toBe('Authorization: __secret__');
    expect(redact('{"Authorization": "Bearer abc.def.ghi"}')).toBe('{"Authorization": "__secret__"}');
    expect(redact('send Bearer abcdefghijkl1234 along')).toBe('send Bearer __secret__ along');
    expect(redact('key sk-proj-abcdefghijklmnop')).toBe('key __secret__');
    expect(redact('{"api_key": "k-1", "serpapi_api_key": "k-2", "q": "cats"}')).toBe('{"api_key": "__secret__", "serpapi_api_key": "__secret__", "q": "cats"}');
    expect(redact('https://x.test/search?q=cats&api_key=abc123&n=2')).toBe('https://x.test/search?q=cats&api_key=__secret__&n=2');
  });

  it('leaves ordinary text alone, and values too short to be keys', () => {
    const text = 'The password policy needs 12 characters; 30 tokens used; a short answer.';
    expect(redact(text)).toBe(text);
  });

  it('folds long contents, keeps file markers as they are and lists the tools offered', () => {
    const traced = tracedRequest(
      {
        llmId: 'm@OpenAI',
        gen: { temperature: 0.1 },
        messages: [
          { role: 'system', content: 'x'.repeat(FOLD_CHARS + 500) },
          { role: 'user', content: 'Read ⟦file:abc123⟧ please' },
        ],
        tools: [{ type: 'function', function: { name: 'search', description: '', parameters: {} } }],
      },
      redact,
    );
    expect(traced.messages[0]).toEqual({ role: 'system', content: 'x'.repeat(FOLD_CHARS), folded_chars: FOLD_CHARS + 500 });
    expect(traced.messages[1]).toEqual({ role: 'user', content: 'Read ⟦file:abc123⟧ please' });
    expect(traced.params).toEqual({ temperature: 0.1 });
    expect(traced.tools).toEqual(['search']);
  });

  it('takes the values of secret-named settings as the secrets to redact', () => {
    expect(configuredSecrets({ TAVILY_API_KEY: 'a', LLM_BASE_URL: 'http://x', SMTP_PASSWORD: 'b', GITHUB_TOKEN: 'c' }, undefined).sort()).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});
