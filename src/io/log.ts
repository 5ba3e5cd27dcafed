/**
 * The structured logger activities and the API write to (one JSON object per line, via pino).
 * Secrets never go in: callers log ids, codes and sizes, not prompts or keys.
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (tests that do not care). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };
