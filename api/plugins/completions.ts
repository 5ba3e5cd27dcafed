/**
 * RAGFlow's completion routes: `POST /api/v1/agents/chat/completions`, with `stream`, sessions,
 * `return_trace` and RAGFlow's `"openai-compatible": true` mode; and the two older routes current
 * RAGFlow forwards to it (api/apps/backward_compat.py): `POST /agents/{id}/completions` (the same
 * request with the agent in the path: the same events, the same `data:[DONE]` end) and the
 * documented OpenAI-style `POST /agents_openai/{id}/chat/completions` (`"openai-compatible": true`
 * forced).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import type { ChatRequest } from '../services/turns/chatTurn';
import { runAgentTurn } from '../services/turns/agentTurn';
import { runOpenAiTurn } from '../services/turns/openaiTurn';
import { readMessageOptions } from '../services/turns/messagePolicy';

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function truthy(v: unknown): boolean {
  return v === true || v === 1 || (typeof v === 'string' && ['true', '1', 'yes'].includes(v.toLowerCase()));
}

function wrongType(path: string, wanted: string, value: unknown): AppError {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const message = `must be ${wanted}, not ${got}`;
  return new AppError('BAD_REQUEST', `\`${path.replace(/^\$\.body\./, '')}\` ${message}`, { problems: [{ path, message }] });
}

/** An optional field of the body: absent or null gives `undefined`, a value of the wrong type is refused. */
function optional<T>(body: Record<string, unknown>, key: string, wanted: string, ok: (v: unknown) => v is T): T | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!ok(v)) throw wrongType(`$.body.${key}`, wanted, v);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

/** The text of a message: a string, or OpenAI's content parts (their `text` joined). */
function messageText(content: unknown, path: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const isPart = (part: unknown) => typeof asRecord(part).type === 'string' && (asRecord(part).type !== 'text' || typeof asRecord(part).text === 'string');
  if (Array.isArray(content) && content.every(isPart)) {
    return content
      .map((part) => asRecord(part).text)
      .filter(isString)
      .join('\n');
  }
  throw wrongType(path, 'a string or a list of {type: "text", text} parts', content);
}

/** The last user message of an OpenAI message list. */
export function lastUserMessage(messages: unknown[], at = '$.body.messages'): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = asRecord(messages[i]);
    if (m.role === 'user') return messageText(m.content, `${at}[${i}].content`);
  }
  return '';
}

function inputsOf(v: unknown): Record<string, unknown> | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new AppError('BAD_REQUEST', '`inputs` must be an object of field values', { problems: [{ path: '$.body.inputs', message: 'must be an object' }] });
  return v as Record<string, unknown>;
}

export async function completionsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const handler = (forceOpenAi: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const body = asRecord(request.body);
    // Types are checked before use: a wrong one is named, never read as absent or turned into text.
    const agentId = (request.params as { agent_id?: string }).agent_id ?? optional(body, 'agent_id', 'a string', isString);
    if (!agentId) throw new AppError('BAD_REQUEST', '`agent_id` is required.');
    const files = optional(body, 'files', 'a list', isArray) ?? [];
    const userId = optional(body, 'user_id', 'a string', isString) || null;
    const bodySessionId = optional(body, 'session_id', 'a string', isString) || null;
    const message = readMessageOptions(body, request.headers);
    if (forceOpenAi || truthy(body['openai-compatible'])) {
      const messages = optional(body, 'messages', 'a list', isArray) ?? [];
      if (messages.length === 0) throw new AppError('BAD_REQUEST', 'You must provide at least one message.', { ragflowCode: 102 });
      const metadata = asRecord(body.metadata);
      const sessionId =
        [bodySessionId, optional(body, 'id', 'a string', isString), metadata.id].find((v): v is string => typeof v === 'string' && v !== '') ?? null;
      const req: ChatRequest = {
        agentId,
        query: lastUserMessage(messages),
        sessionId,
        inputs: inputsOf(body.inputs),
        files,
        userId,
        stream: truthy(body.stream),
        returnTrace: false,
        message,
      };
      return runOpenAiTurn(deps, request, reply, req);
    }
    // RAGFlow passes a non-string query through untyped; here it is refused rather than stringified.
    const query = optional(body, 'query', 'a string', isString) ?? optional(body, 'question', 'a string', isString) ?? '';
    const req: ChatRequest = {
      agentId,
      query,
      sessionId: bodySessionId,
      inputs: inputsOf(body.inputs),
      files,
      userId,
      stream: truthy(body.stream),
      returnTrace: truthy(body.return_trace),
      message,
    };
    return runAgentTurn(deps, request, reply, req);
  };
  const schema = { tags: ['completions'], summary: 'Run an agent turn: SSE events when stream is true, one JSON reply otherwise' };
  app.post('/api/v1/agents/chat/completions', { config: { ragflow: true }, schema }, handler(false));
  app.post(
    '/api/v1/agents/:agent_id/completions',
    { config: { ragflow: true }, schema: { ...schema, summary: 'Older completion route, forwarded to /agents/chat/completions' } },
    handler(false),
  );
  app.post(
    '/api/v1/agents_openai/:agent_id/chat/completions',
    {
      config: { ragflow: true },
      schema: { ...schema, summary: 'OpenAI-style agent route (RAGFlow): /agents/chat/completions with "openai-compatible": true, model ignored' },
    },
    handler(true),
  );
}
