/**
 * Clock and id helpers shared by the repositories, so every row is stamped the RAGFlow way:
 * `*_time` in ms since epoch, `*_date` as `YYYY-MM-DD HH:MM:SS` in UTC.
 */
import { randomUUID } from 'node:crypto';

/** A moment as both of RAGFlow's representations. */
export interface Stamp {
  time: number;
  date: string;
}

/** Formats ms since epoch as `YYYY-MM-DD HH:MM:SS` (UTC). */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** The current time as ms and as a date string. */
export function stampNow(ms: number = Date.now()): Stamp {
  return { time: ms, date: formatDate(ms) };
}

/** A new id: 32 lowercase hex characters, the shape of RAGFlow's `uuid1().hex`. */
export function newId(): string {
  return randomUUID().replace(/-/g, '');
}

/** `YYYY-MM-DD` of a moment, in UTC (the cost ledger's day). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
