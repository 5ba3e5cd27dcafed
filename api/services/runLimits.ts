/**
 * Size limits of what a run starts with. Temporal refuses payloads of a few MB (the workflow
 * input, an activity's input, a workflow task), and a run's query travels inside the engine state
 * through every bookkeeping activity; a value over these limits used to wedge its run. They are
 * checked before anything is stored, and the refusal names the field and the limit.
 *
 * The query and inputs are copied into the engine state several times over (sys.query, Begin's
 * outputs, events, the components that quote them): a 250 KB query made a 2.8 MB activity input,
 * over Temporal's 2 MB payload limit. 64 KB keeps that copying well under it.
 */
import { AppError } from '../../src/errors';

export interface RunInputLimits {
  queryBytes: number;
  inputsBytes: number;
  filesBytes: number;
  dslBytes: number;
}

export const DEFAULT_RUN_INPUT_LIMITS: RunInputLimits = {
  queryBytes: 64 * 1024,
  inputsBytes: 64 * 1024,
  filesBytes: 64 * 1024,
  dslBytes: 1024 * 1024,
};

/** Bytes of a value as it travels (UTF-8 text, or JSON). */
export function sizeOf(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
}

export function describeBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** Throws PAYLOAD_TOO_LARGE when `value` is over `limit` bytes, naming `field`. */
export function checkSize(field: string, value: unknown, limit: number): void {
  checkBytes(field, sizeOf(value), limit);
}

/** As {@link checkSize}, for a size already known. */
export function checkBytes(field: string, size: number, limit: number): void {
  if (size <= limit) return;
  const message = `${field} is ${describeBytes(size)}; the limit is ${describeBytes(limit)}`;
  throw new AppError('PAYLOAD_TOO_LARGE', message, { problems: [{ path: `$.${field}`, message }], field, size_bytes: size, limit_bytes: limit });
}

/** The values a run starts with, against the limits; the DSL when the start carries it. */
export function checkRunInputSizes(limits: RunInputLimits, v: { query: unknown; inputs: unknown; files: unknown; dsl?: unknown }): void {
  checkSize('query', v.query, limits.queryBytes);
  checkSize('inputs', v.inputs, limits.inputsBytes);
  checkSize('files', v.files, limits.filesBytes);
  if (v.dsl !== undefined) checkSize('dsl', v.dsl, limits.dslBytes);
}
