/**
 * QWeather client: the city lookup (`GET {QWEATHER_GEO_BASE_URL}/v2/city/lookup`, default
 * https://geoapi.qweather.com), then the weather (`/v7/weather/{now|3d|7d|…}`), life indices
 * (`/v7/indices/1d?type=0`) or air quality (`/v7/air/now`) of the first match, on the free host
 * (https://devapi.qweather.com) or the paid one (https://api.qweather.com) as `user_type` says;
 * QWEATHER_BASE_URL replaces both (QWeather now gives each account its own API host). QWeather
 * reports errors as a `code` in the body (RAGFlow's table of meanings): 204/404 are answers the
 * model can read, 401/402/403 refused (not retried), 429/5xx retried.
 */
import { AppError } from '../../errors';
import type { ToolExecution, ToolExecutor } from './executor';
import { queryOf, requireCredential, serviceBase, textParam } from './search';
import { fetchJson } from './webHttp';

const MEANING: Record<string, string> = {
  '204': 'The request was successful, but the region you are querying does not have the data you need at this time.',
  '400': 'Request error, may contain incorrect request parameters or missing mandatory request parameters.',
  '401': "Authentication fails, possibly using the wrong KEY, wrong digital signature, wrong type of KEY (e.g. using the SDK's KEY to access the Web API).",
  '402':
    'Exceeded the number of accesses or the balance is not enough to support continued access to the service, you can recharge, upgrade the accesses or wait for the accesses to be reset.',
  '403': 'No access, may be the binding PackageName, BundleID, domain IP address is inconsistent, or the data that requires additional payment.',
  '404': 'The queried data or region does not exist.',
  '429': 'Exceeded the limited QPM (number of accesses per minute), please refer to the QPM description',
  '500': 'No response or timeout, interface service abnormality please contact us',
};

class Answered extends Error {
  constructor(readonly content: string) {
    super(content);
  }
}

async function call(x: ToolExecution, url: string, params: Record<string, string>, key: string): Promise<Record<string, unknown>> {
  const res = (await fetchJson(url, { params: { ...params, key }, signal: x.signal, env: x.env, service: 'QWeather', secrets: [key] })) as Record<
    string,
    unknown
  > | null;
  const code = String(res?.code ?? '');
  if (code === '200') return res!;
  const meaning = MEANING[code] ?? `QWeather API returned code ${code}.`;
  if (code === '204' || code === '404') throw new Answered(`**Error** ${meaning}`);
  const kind = code === '401' || code === '403' ? 'TOOL_AUTH' : code === '429' || code.startsWith('5') || code === '' ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST';
  throw new AppError(kind, `QWeather (code ${code || 'missing'}): ${meaning}`, { qweatherCode: code });
}

const show = (v: unknown) => JSON.stringify(v);

export const qweather: ToolExecutor = async (x) => {
  const location = queryOf(x.args);
  if (!location) return { text: '', outputs: { formalized_content: '' } };
  const key = requireCredential(x, 'QWeather', 'web_apikey', ['QWEATHER_API_KEY']);
  const lang = textParam(x.params, 'lang') || 'zh';
  const type = textParam(x.params, 'type') || 'weather';
  const paid = textParam(x.params, 'user_type') === 'paid';
  const api = serviceBase(x.env, ['QWEATHER_BASE_URL'], paid ? 'https://api.qweather.com' : 'https://devapi.qweather.com');
  let content: string;
  try {
    const lookup = await call(x, `${serviceBase(x.env, ['QWEATHER_GEO_BASE_URL'], 'https://geoapi.qweather.com')}/v2/city/lookup`, { location }, key);
    const id = String(((lookup.location as Array<{ id?: string }> | undefined) ?? [])[0]?.id ?? '');
    if (!id) throw new Answered(`**Error** ${MEANING['404']}`);
    if (type === 'indices') {
      const res = await call(x, `${api}/v7/indices/1d`, { type: '0', location: id, lang }, key);
      const daily = (res.daily as Array<Record<string, string>> | undefined) ?? [];
      content = `${daily[0]?.date ?? ''}\n${daily.map((i) => `${i.name}: ${i.category}, ${i.text}`).join('\n')}`;
    } else if (type === 'airquality') {
      content = show((await call(x, `${api}/v7/air/now`, { location: id, lang }, key)).now);
    } else {
      const period = textParam(x.params, 'time_period') || 'now';
      const res = await call(x, `${api}/v7/weather/${period}`, { location: id, lang }, key);
      content = period === 'now' ? show(res.now) : ((res.daily as unknown[] | undefined) ?? []).map(show).join('\n');
    }
  } catch (err) {
    if (!(err instanceof Answered)) throw err;
    content = err.content;
  }
  return { text: content, outputs: { formalized_content: content } };
};
