/**
 * Shape checks every request passes before its route runs: the JSON body is measured for depth
 * before it is parsed (a 10k-deep document would overflow the stack of whatever walks it next),
 * parsed with `__proto__`/`constructor` kept as ordinary keys (JSON.parse makes them own data
 * properties; secure-json-parse's refusal read as "not valid JSON"), and every string of the
 * body, the path and the query is checked for text PostgreSQL refuses (NUL, lone surrogates).
 * Each refusal is a 400 (RAGFlow code 101) naming the field. An empty body sent as JSON (RAGFlow's
 * SDK and test client send `Content-Type: application/json` on every DELETE/POST, body or not) is
 * read as `{}`, as RAGFlow's own request reader does.
 */
import type { FastifyInstance } from 'fastify';
import { findBadText, jsonTextTooDeep, MAX_JSON_DEPTH } from '../src/core/dsl/jsonShape';
import { AppError } from '../src/errors';

function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  if (jsonTextTooDeep(text, MAX_JSON_DEPTH)) {
    const message = `nests arrays/objects deeper than the limit of ${MAX_JSON_DEPTH} levels`;
    throw new AppError('BAD_REQUEST', `The request body ${message}`, { problems: [{ path: '$.body', message }] });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AppError('BAD_REQUEST', `The request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function installRequestGuard(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addHook('preValidation', async (request) => {
    const problems = [
      ...findBadText(request.params, [], '$.path'),
      ...findBadText(request.query, [], '$.query'),
      ...(typeof request.body === 'object' || typeof request.body === 'string' ? findBadText(request.body, [], '$.body') : []),
    ];
    if (problems.length > 0) {
      throw new AppError('BAD_REQUEST', `Invalid request: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, { problems });
    }
  });
}
