/**
 * Which database failures mean "the store is unavailable" (worth retrying later) as opposed to a
 * bug or a constraint violation, which must surface as they are.
 */
import pg from 'pg';
import { AppError } from '../../errors';

/** SQLSTATE classes that mean the server or the connection is (temporarily) gone. */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P)/;

/**
 * What a client is told (the API answers it with HTTP 503): what is wrong and that retrying is
 * the remedy. The driver's own words (addresses, SQLSTATE) go to `details.cause` and the logs.
 */
export const STORE_UNAVAILABLE_MESSAGE = 'The database (PostgreSQL) is unavailable at the moment; retry shortly';

/**
 * Converts an error thrown by the pg driver into `STORE_UNAVAILABLE` when it is a connectivity
 * problem; every other error is returned unchanged so callers can still inspect it.
 * Only call it on errors thrown by driver calls, never on errors of caller code.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof pg.DatabaseError) {
    if (!err.code || !UNAVAILABLE_SQLSTATE.test(err.code)) return err;
    return new AppError('STORE_UNAVAILABLE', STORE_UNAVAILABLE_MESSAGE, { sqlState: err.code, cause: err.message });
  }
  // Not a server error: the driver failed to reach or keep the connection (refused, reset, timeout...).
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return new AppError('STORE_UNAVAILABLE', STORE_UNAVAILABLE_MESSAGE, {
    cause: message,
    ...(typeof code === 'string' ? { errno: code } : {}),
  });
}

/** The URL without its password, fit for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparsable database URL>';
  }
}
