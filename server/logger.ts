/** Structured logs: one JSON object per line (pino), fields instead of interpolated text. */
import pino from 'pino';
import type { Logger } from '../src/io/log';

export function createLogger(level: string, name = 'agent-canvas'): Logger {
  const base = pino({ name, level, base: { pid: process.pid } });
  const wrap = (fn: 'info' | 'warn' | 'error' | 'debug') => (msg: string, fields?: Record<string, unknown>) => base[fn](fields ?? {}, msg);
  return { info: wrap('info'), warn: wrap('warn'), error: wrap('error'), debug: wrap('debug') };
}
