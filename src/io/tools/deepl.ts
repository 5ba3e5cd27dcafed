/**
 * DeepL client: `POST /v2/translate` (JSON `{text: [..], source_lang, target_lang}`, key in
 * `Authorization: DeepL-Auth-Key …`), as the `deepl` library sends it. A free key (ending in
 * `:fx`) goes to api-free.deepl.com (DEEPL_FREE_BASE_URL), any other to api.deepl.com
 * (DEEPL_BASE_URL). DeepL answers 403 for a bad key, 456 when the quota is used up, 429 when
 * throttled (retried).
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';
import { queryOf, requireCredential, serviceBase, textParam } from './search';
import { fetchJson, statusError } from './webHttp';

export const deeplTranslate: ToolExecutor = async (x) => {
  const text = queryOf(x.args);
  if (!text) return { text: '', outputs: { formalized_content: '' } };
  const key = requireCredential(x, 'DeepL', 'auth_key', ['DEEPL_AUTH_KEY', 'DEEPL_API_KEY']);
  const base = key.endsWith(':fx')
    ? serviceBase(x.env, ['DEEPL_FREE_BASE_URL'], 'https://api-free.deepl.com')
    : serviceBase(x.env, ['DEEPL_BASE_URL'], 'https://api.deepl.com');
  const res = (await fetchJson(`${base}/v2/translate`, {
    json: { text: [text], source_lang: textParam(x.params, 'source_lang') || 'ZH', target_lang: textParam(x.params, 'target_lang') || 'EN-GB' },
    headers: { authorization: `DeepL-Auth-Key ${key}` },
    signal: x.signal,
    env: x.env,
    service: 'DeepL',
    secrets: [key],
    explain: (status, body) => {
      const detail = /"message"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? body.slice(0, 200);
      if (status === 456) return new AppError('TOOL_BAD_REQUEST', `DeepL: the translation quota of this key is used up (HTTP 456): ${detail}`, { status });
      const e = statusError('DeepL', status, body);
      return new AppError(e.code, `DeepL answered HTTP ${status}: ${detail}`, e.details);
    },
  })) as { translations?: Array<{ text?: string; detected_source_language?: string }> } | null;
  const translated = res?.translations?.[0]?.text;
  if (typeof translated !== 'string') throw new AppError('TOOL_UNAVAILABLE', 'DeepL answered without a translation');
  return { text: translated, outputs: { formalized_content: translated } };
};
