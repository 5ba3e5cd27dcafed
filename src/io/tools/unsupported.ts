/**
 * RAGFlow tools that wrap a Python library scraping a web site, with no protocol of their own to
 * speak: their components load and validate, and a run that reaches them fails with
 * COMPONENT_UNSUPPORTED saying what to use instead (README, "Tools").
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';

function unsupported(message: string): ToolExecutor {
  return () => Promise.reject(new AppError('COMPONENT_UNSUPPORTED', message));
}

/** RAGFlow: `akshare.stock_news_em`, which scrapes East Money's site search (an undocumented JSONP endpoint). */
export const akshareUnsupported = unsupported(
  'AkShare cannot run in this build: RAGFlow calls the akshare Python library, which scrapes East Money pages with no stable API. For stock news use YahooFinance (news), TuShare (news flashes) or a web search tool (TavilySearch, Google, Bing) with the stock code.',
);

/** RAGFlow: `pywencai`, commented out in RAGFlow itself (its WenCai always answers nothing). */
export const wencaiUnsupported = unsupported(
  "WenCai cannot run in this build: iwencai.com has no public API (RAGFlow's own WenCai has its pywencai call disabled and returns nothing). For stock screening data use YahooFinance or TuShare, or an MCP server for iwencai.",
);
