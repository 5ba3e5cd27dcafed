/**
 * RAGFlow's completion routes: `POST /api/v1/agents/chat/completions` (and the older
 * `/agents/{id}/completions`, forwarded here), with `stream`, sessions, and RAGFlow's
 * `"openai-compatible": true` mode.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { runCompletion, type CompletionRequest } from '../services/completion';

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function truthy(v: unknown): boolean {
  return v === true || v === 1 || (typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase()));
}

/** The last user message of an OpenAI message list. */
export function lastUserMessage(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = asRecord(messages[i]);
    if (m.role === 'user') return typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
  }
  return '';
}

function inputsOf(v: unknown): Record<string, unknown> | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new AppError('BAD_REQUEST', '`inputs` must be an object of field values', { problems: [{ path: '$.body.inputs', message: 'must be an object' }] });
  return v as Record<string, unknown>;
}

export async function completionsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = asRecord(request.body);
    const agentId = (request.params as { agent_id?: string }).agent_id ?? body.agent_id;
    if (typeof agentId !== 'string' || !agentId) throw new AppError('BAD_REQUEST', '`agent_id` is required.');
    const files = Array.isArray(body.files) ? body.files : [];
    const userId = typeof body.user_id === 'string' && body.user_id ? body.user_id : null;
    if (truthy(body['openai-compatible'])) {
      const messages = Array.isArray(body.messages) ? body.messages : [];
      if (messages.length === 0) throw new AppError('BAD_REQUEST', 'You must provide at least one message.', { ragflowCode: 102 });
      const metadata = asRecord(body.metadata);
      const sessionId = [body.session_id, body.id, metadata.id].find((v): v is string => typeof v === 'string' && v !== '') ?? null;
      const req: CompletionRequest = { agentId, query: lastUserMessage(messages), sessionId, inputs: inputsOf(body.inputs), files, userId, stream: truthy(body.stream), returnTrace: false, format: 'openai' };
      return runCompletion(deps, request, reply, req);
    }
    const query = body.query ?? body.question ?? '';
    const sessionId = typeof body.session_id === 'string' && body.session_id ? body.session_id : null;
    const req: CompletionRequest = { agentId, query, sessionId, inputs: inputsOf(body.inputs), files, userId, stream: truthy(body.stream), returnTrace: truthy(body.return_trace), format: 'ragflow' };
    return runCompletion(deps, request, reply, req);
  };
  const schema = { tags: ['completions'], summary: 'Run an agent turn: SSE events when stream is true, one JSON reply otherwise' };
  app.post('/api/v1/agents/chat/completions', { config: { ragflow: true }, schema }, handle);
  app.post('/api/v1/agents/:agent_id/completions', { config: { ragflow: true }, schema: { ...schema, summary: 'Older completion route, forwarded to /agents/chat/completions' } }, handle);
}
