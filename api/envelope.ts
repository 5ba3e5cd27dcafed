/**
 * Response shapes. RAGFlow-compatible routes answer HTTP 200 with `{code, data}` or `{code,
 * message}` (RAGFlow's RetCode); our own routes use HTTP status codes and `{code, message}`.
 */
import type { FastifyReply } from 'fastify';
import { ERROR_REGISTRY, type AppError, type ErrorCode } from '../src/errors';

/** RAGFlow's `get_json_result`: `{code: 0, message: "success", data}`. */
export function ragflowJson(data: unknown): { code: number; message: string; data: unknown } {
  return { code: 0, message: 'success', data };
}

/** RAGFlow's `get_result`: `{code: 0, data}`. */
export function ragflowResult(data: unknown): { code: number; data: unknown } {
  return { code: 0, data };
}

/** RAGFlow's error envelope for an AppError (HTTP 200, non-zero code). */
export function ragflowError(err: AppError): Record<string, unknown> {
  // A route may pin the exact RetCode RAGFlow uses for this case (e.g. 102 for a missing message).
  const code = typeof err.details.ragflowCode === 'number' ? err.details.ragflowCode : ERROR_REGISTRY[err.code].ragflow;
  const body: Record<string, unknown> = { code, message: err.message };
  if (err.details.problems) body.data = { errors: err.details.problems };
  return body;
}

/** Our error body with its HTTP status. */
export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details.problems) body.errors = err.details.problems;
  return reply.status(ERROR_REGISTRY[err.code].http).send(body);
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_REGISTRY[code].http;
}
