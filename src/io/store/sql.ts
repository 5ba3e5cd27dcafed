/**
 * Small helpers for the few queries built at run time (filters, ordering, paging). Values always
 * travel as parameters; only identifiers picked from a fixed list are ever written into SQL.
 */
import type { ListOptions } from './contract';

/** Collects parameter values and hands out their `$n` placeholders. */
export class SqlParams {
  private readonly collected: unknown[] = [];

  /** Adds a value; returns its placeholder. */
  add(value: unknown): string {
    this.collected.push(value);
    return `$${this.collected.length}`;
  }

  /** A copy of the values so far (drivers may read the array after later `add` calls). */
  values(): unknown[] {
    return [...this.collected];
  }
}

/**
 * `ORDER BY` for a list: `orderby` is looked up in `allowed` (column by API name) and falls back
 * to `fallback`; the row id breaks ties so that paging is stable.
 */
export function orderBy(options: Pick<ListOptions, 'orderby' | 'desc'>, allowed: Record<string, string>, fallback: string): string {
  const column = Object.prototype.hasOwnProperty.call(allowed, options.orderby) ? allowed[options.orderby] : fallback;
  const direction = options.desc ? 'DESC' : 'ASC';
  return `ORDER BY ${column} ${direction}, id ${direction}`;
}

/** `LIMIT`/`OFFSET` for a 1-based page; a page size of 0 or less means everything. */
export function pageClause(options: Pick<ListOptions, 'page' | 'pageSize'>, params: SqlParams): string {
  const pageSize = Number.isFinite(options.pageSize) ? Math.floor(options.pageSize) : 0;
  if (pageSize <= 0) return '';
  const page = Number.isFinite(options.page) ? Math.max(1, Math.floor(options.page)) : 1;
  return `LIMIT ${params.add(pageSize)} OFFSET ${params.add((page - 1) * pageSize)}`;
}

/**
 * Serializes a value for a `$n::jsonb` parameter (pg would turn JS arrays into SQL arrays).
 * jsonb rejects the NUL character, which scraped pages or tool output may contain: such
 * characters are dropped rather than failing the write for good (a retry would fail the same way).
 */
export function jsonParam(value: unknown): string {
  const json = JSON.stringify(value);
  if (!json.includes('\\u0000')) return json;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replaceAll('\u0000', '') : v));
}
