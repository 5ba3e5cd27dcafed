/** Page, page size, order and direction from a query string, RAGFlow's defaults and limits. */
import { AppError } from '../src/errors';

export interface Paging {
  page: number;
  pageSize: number;
  orderby: string;
  desc: boolean;
}

function positiveInt(name: string, raw: string | undefined, def: number, max: number): number {
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new AppError('BAD_REQUEST', `${name} must be a positive integer, got ${JSON.stringify(raw)}`, {
      problems: [{ path: `$.query.${name}`, message: 'must be a positive integer' }],
    });
  return Math.min(n, max);
}

export function pageParams(q: Record<string, string | undefined>, defaultOrder: string): Paging {
  return {
    page: positiveInt('page', q.page, 1, 1_000_000),
    pageSize: positiveInt('page_size', q.page_size, 30, 1000),
    orderby: q.orderby || defaultOrder,
    desc: !['false', 'False', '0'].includes(q.desc ?? 'true'),
  };
}
