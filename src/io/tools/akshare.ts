/**
 * AkShare client: what RAGFlow's `akshare.stock_news_em(symbol)` calls — East Money's site search
 * (`GET {AKSHARE_BASE_URL}/search/jsonp`, default http://search-api-web.eastmoney.com, a JSONP
 * answer whose `result.cmsArticleWebOld` lists the articles) — and RAGFlow's rendering of the
 * first `top_n` news: a link, the content, the time and the source, in its Chinese labels. The
 * endpoint is East Money's own page API, not a published one (the one akshare has kept calling).
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';
import { queryOf, serviceBase } from './search';
import { fetchText, positiveInt } from './webHttp';

/** The JSONP callback name akshare sends (any name works; East Money echoes it). */
const CALLBACK = 'jQuery3510875346244069884_1668256937995';

interface EmArticle {
  date?: string;
  title?: string;
  content?: string;
  mediaName?: string;
  code?: string;
  url?: string;
}

/** akshare's clean-up of East Money's highlighted text. */
const clean = (v: unknown) =>
  String(v ?? '')
    .replace(/<\/?em>/g, '')
    .replace(/\u3000|\r\n|\n/g, ' ')
    .trim();

export const akshareStockNews: ToolExecutor = async (x) => {
  const symbol = queryOf(x.args);
  if (!symbol) return { text: '', outputs: { formalized_content: '', json: [] } };
  const topN = Math.min(positiveInt(x.params.top_n, 10), 100);
  const param = {
    uid: '',
    keyword: symbol,
    type: ['cmsArticleWebOld'],
    client: 'web',
    clientType: 'web',
    clientVersion: 'curr',
    param: { cmsArticleWebOld: { searchScope: 'default', sort: 'default', pageIndex: 1, pageSize: Math.max(topN, 10), preTag: '<em>', postTag: '</em>' } },
  };
  const { text } = await fetchText(`${serviceBase(x.env, ['AKSHARE_BASE_URL'], 'http://search-api-web.eastmoney.com')}/search/jsonp`, {
    params: { cb: CALLBACK, param: JSON.stringify(param), _: String(Date.now()) },
    headers: { referer: `https://so.eastmoney.com/news/s?keyword=${encodeURIComponent(symbol)}` },
    signal: x.signal,
    env: x.env,
    service: 'AkShare (East Money)',
  });
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  let data: { code?: number; msg?: string; result?: { cmsArticleWebOld?: EmArticle[] } };
  try {
    data = JSON.parse(open >= 0 && close > open ? text.slice(open + 1, close) : text) as typeof data;
  } catch {
    throw new AppError('TOOL_UNAVAILABLE', `AkShare: East Money answered something that is not JSONP: ${text.slice(0, 200)}`);
  }
  if (data.code !== undefined && data.code !== 0)
    throw new AppError('TOOL_UNAVAILABLE', `AkShare: East Money answered code ${data.code}: ${data.msg ?? ''}`.trim());
  const news = (data.result?.cmsArticleWebOld ?? []).slice(0, topN).map((a) => ({
    关键词: symbol,
    新闻标题: clean(a.title),
    新闻内容: clean(a.content),
    发布时间: String(a.date ?? ''),
    文章来源: String(a.mediaName ?? ''),
    新闻链接: a.url || (a.code ? `http://finance.eastmoney.com/a/${a.code}.html` : ''),
  }));
  const content = news
    .map((i) => `<a href="${i.新闻链接}">${i.新闻标题}</a>\n 新闻内容: ${i.新闻内容} \n发布时间:${i.发布时间} \n文章来源: ${i.文章来源}`)
    .join('\n\n');
  return { text: content, outputs: { formalized_content: content, json: news } };
};
