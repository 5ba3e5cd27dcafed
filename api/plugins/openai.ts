/**
 * The OpenAI-compatible routes: any OpenAI client can talk to a canvas, `model` being the canvas
 * id.
 *
 * - `POST /v1/chat/completions`: OpenAI's chat completions (chunks when streaming) with RAGFlow's
 *   extra `reference`. `session_id` (an extension) continues a conversation; the reply's `id` is
 *   the session id to send next time.
 * - `GET /v1/chat/completions/{run id}/stream`: a streamed completion again, after `Last-Event-ID`
 *   (the `id:` of the last chunk the client got; the run id is the completion's
 *   `X-Agent-Canvas-Run-Id` header), from the stored events: after a dropped connection or an API
 *   restart. Another tenant's run, or no run, is a 404.
 * - `GET /v1/models` (and `/v1/models/{id}`): the tenant's canvases as models.
 *
 * Errors are OpenAI's `{error: {message, type, param, code}}` with OpenAI's HTTP statuses, so the
 * OpenAI SDKs raise their typed errors: 401 (AuthenticationError) for a missing or unknown key,
 * 404 (NotFoundError, `model_not_found`) for a model that is no canvas of the caller, 400
 * (BadRequestError) for a malformed request.
 *
 * RAGFlow's own OpenAI-style agent route, `POST /api/v1/agents_openai/{agent_id}/chat/completions`,
 * is RAGFlow's: its envelope and codes (it forwards to `/agents/chat/completions` with
 * `"openai-compatible": true`); see completions.ts.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { CanvasRecord } from '../../src/io/store/contract';
import type { AppDeps } from '../deps';
import { parseEventId } from '../services/eventStream';
import { resumeOpenAiStream, runOpenAiTurn } from '../services/turns/openaiTurn';
import { lastUserMessage } from './completions';
import { readMessageOptions } from '../services/turns/messagePolicy';

const MessageSchema = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']), content: z.unknown() });

const Body = z.looseObject({
  model: z.string().min(1, 'model must name a canvas id'),
  messages: z.array(MessageSchema).min(1, 'at least one message is required'),
  stream: z.boolean().nullish(),
  session_id: z.string().optional(),
  user: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** What the message does while the session's turn runs (docs/API.md, "message_policy"). */
  message_policy: z.enum(['reject', 'enqueue', 'interrupt', 'steer']).optional(),
  message_id: z.string().min(1).max(200).optional(),
});

const openai = { openai: true } as const;

function modelNotFound(model: string): AppError {
  return new AppError('NOT_FOUND', `The model \`${model}\` does not exist or you do not have access to it.`, {
    status: 404,
    openaiCode: 'model_not_found',
    openaiParam: 'model',
  });
}

/** A canvas as an OpenAI model object (`created` in seconds, as OpenAI's). */
function modelView(c: CanvasRecord): Record<string, unknown> {
  return { id: c.id, object: 'model', created: Math.floor(c.create_time / 1000), owned_by: c.tenant_id, name: c.title };
}

export async function openAiPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/v1/chat/completions',
    { config: openai, schema: { tags: ['completions'], summary: 'OpenAI-compatible chat completions; model = canvas id', body: Body } },
    async (request, reply) => {
      const body = request.body as z.infer<typeof Body>;
      if (!(await deps.store.canvases.get(request.tenantId, body.model))) throw modelNotFound(body.model);
      return runOpenAiTurn(deps, request, reply, {
        agentId: body.model,
        query: lastUserMessage(body.messages),
        sessionId: body.session_id ?? null,
        inputs: body.inputs ?? null,
        files: [],
        userId: body.user ?? null,
        stream: body.stream === true,
        returnTrace: false,
        message: readMessageOptions(body, request.headers),
      });
    },
  );

  app.get(
    '/v1/chat/completions/:id/stream',
    {
      config: openai,
      schema: {
        tags: ['completions'],
        summary: 'Resume a streamed OpenAI completion after Last-Event-ID; id = the X-Agent-Canvas-Run-Id of the completion',
        params: z.object({ id: z.string().min(1) }),
        querystring: z.looseObject({ last_event_id: z.string().optional() }),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const raw = (request.headers['last-event-id'] as string | undefined) ?? (request.query as { last_event_id?: string }).last_event_id;
      let after;
      try {
        after = parseEventId(raw);
      } catch (err) {
        throw new AppError('BAD_REQUEST', err instanceof Error ? err.message : String(err), {
          openaiParam: 'Last-Event-ID',
          problems: [{ path: '$.headers["last-event-id"]', message: 'must be <seq>-<sub>' }],
        });
      }
      const run = await deps.store.runs.get(request.tenantId, id);
      if (!run) throw new AppError('NOT_FOUND', `No completion stream ${id}`, { status: 404, openaiCode: 'not_found', openaiParam: 'id' });
      return resumeOpenAiStream(deps, request, reply, run, after);
    },
  );

  app.get('/v1/models', { config: openai, schema: { tags: ['completions'], summary: 'The caller’s canvases as OpenAI models' } }, async (request) => {
    const { items } = await deps.store.canvases.list(request.tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: false });
    return { object: 'list', data: items.map(modelView) };
  });

  app.get(
    '/v1/models/:model',
    { config: openai, schema: { tags: ['completions'], summary: 'One canvas as an OpenAI model (404 model_not_found otherwise)' } },
    async (request) => {
      const { model } = request.params as { model: string };
      const canvas = await deps.store.canvases.get(request.tenantId, model);
      if (!canvas) throw modelNotFound(model);
      return modelView(canvas);
    },
  );
}
