/** RAGFlow's REST paging parameters (`validate_rest_api_page`/`_page_size`), as the document and chunk lists read them. */
import { MAX_PAGE, pageTooFar } from '../paging';
import { rf } from './datasets';

const MAX_PAGE_SIZE = 100;

function lenientInt(raw: unknown, def: number): number {
  const n = Number.parseInt(String(raw ?? ''), 10);
  return Number.isFinite(n) && n >= 1 && /^\s*[+-]?\d+\s*$/.test(String(raw)) ? n : def;
}

/** A page number; a bad value falls back to the default, one past MAX_PAGE is refused (code 101). */
export function restPage(raw: unknown, def: number): number {
  const n = lenientInt(raw, def);
  if (n > MAX_PAGE) throw pageTooFar();
  return n;
}

/** A page size; a bad value falls back to the default, one over the maximum is refused (code 101). */
export function restPageSize(raw: unknown, def = 30): number {
  const n = lenientInt(raw, def);
  if (n > MAX_PAGE_SIZE) throw rf(101, `page_size must be less than or equal to ${MAX_PAGE_SIZE}`);
  return n;
}
