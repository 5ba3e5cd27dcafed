/**
 * TuShare client: TuShare Pro's HTTP API (`POST {TUSHARE_BASE_URL}`, default http://api.tushare.pro,
 * JSON `{api_name: "news", token, params: {src, start_date, end_date}}`), as RAGFlow calls it; the
 * news flashes whose content contains the keyword (the component's `keyword`, else the query) come
 * back as a markdown table. TuShare reports errors as a non-zero `code` with a `msg`.
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';
import { queryOf, requireCredential, serviceBase, textParam } from './search';
import { fetchJson } from './webHttp';
import { markdownTable } from './yahooTables';

const now = () => new Date().toISOString().replace('T', ' ').slice(0, 19);

export const tushareNews: ToolExecutor = async (x) => {
  const input = queryOf(x.args);
  if (!input) return { text: '', outputs: { content: '', formalized_content: '' } };
  const token = requireCredential(x, 'TuShare', 'token', ['TUSHARE_TOKEN']);
  const res = (await fetchJson(serviceBase(x.env, ['TUSHARE_BASE_URL'], 'http://api.tushare.pro'), {
    json: {
      api_name: 'news',
      token,
      params: {
        src: textParam(x.params, 'src') || 'eastmoney',
        start_date: textParam(x.params, 'start_date') || '2024-01-01 09:00:00',
        end_date: textParam(x.params, 'end_date') || now(),
      },
    },
    signal: x.signal,
    env: x.env,
    service: 'TuShare',
    secrets: [token],
  })) as { code?: number; msg?: string; data?: { fields?: string[]; items?: unknown[][] } } | null;
  if (res?.code !== 0) {
    const msg = String(res?.msg ?? 'no message');
    const kind = /token|权限|积分/i.test(msg) ? 'TOOL_AUTH' : /每分钟|每小时|每天|频|limit/i.test(msg) ? 'TOOL_UNAVAILABLE' : 'TOOL_BAD_REQUEST';
    throw new AppError(kind, `TuShare answered code ${String(res?.code)}: ${msg}`);
  }
  const fields = res.data?.fields ?? [];
  const at = fields.indexOf('content');
  const keyword = (textParam(x.params, 'keyword') || input).toLowerCase();
  const rows = (res.data?.items ?? []).filter(
    (r) =>
      at >= 0 &&
      String(r[at] ?? '')
        .toLowerCase()
        .includes(keyword),
  );
  const content = rows.length
    ? markdownTable(
        ['', ...fields],
        rows.map((r, i) => [i, ...r]),
      )
    : '';
  return { text: content, outputs: { content, formalized_content: content } };
};
