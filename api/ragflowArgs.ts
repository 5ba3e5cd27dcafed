/**
 * RAGFlow's request checks that clients match on by wording: `validate_request(...)` (api/utils/
 * api_utils.py) answers `{code: 101, message: "required argument are missing: a,b; "}` when a
 * named key is absent from the body (present with any value, null included, passes).
 */
import { AppError } from '../src/errors';

export function asBody(raw: unknown): Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** Throws RAGFlow's "required argument are missing" (code 101) naming every absent key. */
export function requireArguments(body: Record<string, unknown>, names: readonly string[]): void {
  const missing = names.filter((n) => !(n in body));
  if (missing.length > 0)
    throw new AppError('BAD_REQUEST', `required argument are missing: ${missing.join(',')}; `, {
      problems: missing.map((n) => ({ path: `$.body.${n}`, message: 'is required' })),
    });
}
