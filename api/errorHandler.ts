/**
 * The one error handler: maps every failure to a response. RAGFlow-compatible routes (route
 * config `ragflow: true`) keep RAGFlow's envelope on HTTP 200; our routes use HTTP statuses.
 * Bad input always gets a 4xx naming the field; only bugs and outages become 5xx.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { Logger } from '../src/io/log';
import { formatJsonPath, type PathSegment } from '../src/core/dsl/jsonPath';
import { AppError, ERROR_REGISTRY, type Problem } from '../src/errors';
import { ragflowError, sendError } from './envelope';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answer errors in RAGFlow's envelope (HTTP 200 with a RetCode). */
    ragflow?: boolean;
  }
}

function pointerToPath(context: string, pointer: string): string {
  const segments: PathSegment[] = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return formatJsonPath(segments, `$.${context}`);
}

/** Converts whatever was thrown into an AppError. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const context = (err as Partial<FastifyError>).validationContext ?? 'body';
    const problems: Problem[] = err.validation.map((v) => ({ path: pointerToPath(context, v.instancePath), message: v.message ?? 'is invalid' }));
    return new AppError('BAD_REQUEST', `Invalid request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
  }
  const fe = err as Partial<FastifyError>;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('BAD_REQUEST', 'The request body is too large', { status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('BAD_REQUEST', 'Unsupported content type: send application/json', { status: 415 });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The request body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${fe.message ?? ''}`.trim());
  }
  if (fe.validation) {
    const problems = fe.validation.map((v) => ({ path: pointerToPath(fe.validationContext ?? 'body', v.instancePath), message: v.message ?? 'is invalid' }));
    return new AppError('BAD_REQUEST', `Invalid request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('BAD_REQUEST', fe.message ?? 'Bad request', { status: fe.statusCode });
  }
  return new AppError('INTERNAL', 'Internal error', { cause: err instanceof Error ? err.message : String(err) });
}

/** OpenAI's error `type` for an HTTP status (what its SDKs map to typed errors by status). */
function openAiErrorType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'invalid_request_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export function openAiError(status: number, message: string, code: string | null, param: string | null = null): Record<string, unknown> {
  return { error: { message, type: openAiErrorType(status), param, code } };
}

/** Outages (the store, Temporal): HTTP 503 on every route, RAGFlow's too, so clients and load balancers retry. */
const RETRY_AFTER_S = 5;

export function replyWithError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const outage = ERROR_REGISTRY[err.code].http === 503;
  if (outage) void reply.header('retry-after', String(RETRY_AFTER_S));
  if (request.routeOptions.config?.openai) {
    const status = typeof err.details.status === 'number' ? err.details.status : ERROR_REGISTRY[err.code].http;
    const openAiCode = typeof err.details.openaiCode === 'string' ? err.details.openaiCode : err.code.toLowerCase();
    const problems = err.details.problems as Problem[] | undefined;
    const firstPath = problems?.[0]?.path.replace(/^\$\.(body|query|path)\.?/, '');
    const param = typeof err.details.openaiParam === 'string' ? err.details.openaiParam : firstPath || null;
    // `errors` (every bad field by path) is our addition; OpenAI's SDKs read `error`.
    return reply.status(status).send({ ...openAiError(status, err.message, openAiCode, param), ...(problems ? { errors: problems } : {}) });
  }
  // A few of our additions to RAGFlow's routes (form validation) also say it with the HTTP status.
  if (request.routeOptions.config?.ragflow)
    return reply.status(typeof err.details.ragflowHttpStatus === 'number' ? err.details.ragflowHttpStatus : outage ? 503 : 200).send(ragflowError(err));
  const status = typeof err.details.status === 'number' ? err.details.status : undefined;
  if (status) return reply.status(status).send({ code: err.code, message: err.message });
  return sendError(reply, err);
}

export function installErrorHandler(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((err, request, reply) => {
    const appErr = toAppError(err);
    if (appErr.code === 'INTERNAL' || appErr.category === 'system') {
      log.error('request failed', {
        method: request.method,
        url: request.url,
        code: appErr.code,
        error: err instanceof Error ? err.stack : String(err),
        ...(appErr.details.cause !== undefined ? { cause: String(appErr.details.cause) } : {}),
      });
    }
    return replyWithError(request, reply, appErr);
  });
  // RAGFlow's 404 handler (api/apps/__init__.py `not_found`), on every path: numeric code, `error`.
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ code: 404, message: `Not Found: ${request.url.split('?')[0]}`, data: null, error: 'Not Found' }),
  );
}
