/**
 * Executors of RAGFlow's `agent/tools` catalog beyond the first ones wired in activities/tools.ts,
 * keyed by `component_name`; each speaks its service's own protocol (see its file).
 */
import { akshareStockNews } from './akshare';
import { arxivSearch } from './arxiv';
import { bgptSearch } from './bgpt';
import { bingSearch } from './bing';
import { crawl } from './crawler';
import { deeplTranslate } from './deepl';
import type { ToolExecutor } from './executor';
import { githubSearch } from './github';
import { googleSearch } from './google';
import { googleScholarSearch } from './googleScholar';
import { jin10 } from './jin10';
import { keenableSearch } from './keenable';
import { pubmedSearch } from './pubmed';
import { qweather } from './qweather';
import { queritContents, queritSearch } from './querit';
import { tushareNews } from './tushare';
import { wencaiUnsupported } from './unsupported';
import { yahooFinance } from './yahooFinance';

export const RAGFLOW_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  AkShare: akshareStockNews,
  ArXiv: arxivSearch,
  BGPT: bgptSearch,
  Bing: bingSearch,
  Crawler: crawl,
  DeepL: deeplTranslate,
  GitHub: githubSearch,
  Google: googleSearch,
  GoogleScholar: googleScholarSearch,
  Jin10: jin10,
  KeenableSearch: keenableSearch,
  PubMed: pubmedSearch,
  QWeather: qweather,
  QueritContents: queritContents,
  QueritSearch: queritSearch,
  TuShare: tushareNews,
  WenCai: wencaiUnsupported,
  YahooFinance: yahooFinance,
};
