/** Page, page size, order and direction from a query string, RAGFlow's defaults and limits. */
import { AppError } from '../src/errors';

export interface Paging {
  page: number;
  pageSize: number;
  orderby: string;
  desc: boolean;
}

/**
 * The furthest page any list serves. Pages past it are refused rather than passed on: a page of
 * 99999999999999999999 times its size is an offset no store can take (PostgreSQL's bigint
 * overflows), and no list here is that long.
 */
export const MAX_PAGE = 1_000_000;

/** The refusal of a page past MAX_PAGE (RAGFlow's routes: code 101), naming the field. */
export function pageTooFar(name = 'page'): AppError {
  const message = `must be less than or equal to ${MAX_PAGE}`;
  return new AppError('BAD_REQUEST', `${name} ${message}`, { ragflowCode: 101, problems: [{ path: `$.query.${name}`, message }] });
}

function positiveInt(name: string, raw: string | undefined, def: number, max: number): number {
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new AppError('BAD_REQUEST', `${name} must be a positive integer, got ${JSON.stringify(raw)}`, {
      problems: [{ path: `$.query.${name}`, message: 'must be a positive integer' }],
    });
  if (name === 'page' && n > MAX_PAGE) throw pageTooFar();
  return Math.min(n, max);
}

export function pageParams(q: Record<string, string | undefined>, defaultOrder: string): Paging {
  return {
    page: positiveInt('page', q.page, 1, MAX_PAGE),
    pageSize: positiveInt('page_size', q.page_size, 30, 1000),
    orderby: q.orderby || defaultOrder,
    desc: !['false', 'False', '0'].includes(q.desc ?? 'true'),
  };
}

/** RAGFlow's public page-size ceiling (api/utils/pagination_utils.py REST_API_MAX_PAGE_SIZE). */
export const REST_API_MAX_PAGE_SIZE = 100;

function lenientInt(raw: string | undefined, def: number): number {
  // Python's int(): optional sign, digits, surrounding blanks; anything else falls back.
  if (raw === undefined || !/^\s*[+-]?\d+\s*$/.test(raw)) return def;
  const n = Number(raw.trim());
  return n < 1 ? def : n;
}

/**
 * Paging as RAGFlow's agent and agent-session lists read it (`validate_rest_api_page`,
 * `validate_rest_api_page_size`): a page or page size that is not a positive integer silently
 * falls back to the default (1, 30); a page size over 100 is refused. RAGFlow lets that
 * ValueError reach its generic handler (code 100, the exception's repr), so the answer is code 100
 * with the same message.
 */
export function restApiPageParams(q: Record<string, string | undefined>, defaultOrder: string): Paging {
  const pageSize = lenientInt(q.page_size, 30);
  if (pageSize > REST_API_MAX_PAGE_SIZE)
    throw new AppError('BAD_REQUEST', `ValueError('page_size must be less than or equal to ${REST_API_MAX_PAGE_SIZE}')`, {
      ragflowCode: 100,
      problems: [{ path: '$.query.page_size', message: `must be less than or equal to ${REST_API_MAX_PAGE_SIZE}` }],
    });
  const page = lenientInt(q.page, 1);
  if (page > MAX_PAGE) throw pageTooFar();
  return {
    page,
    pageSize,
    orderby: q.orderby || defaultOrder,
    desc: String(q.desc ?? 'true').toLowerCase() !== 'false',
  };
}
