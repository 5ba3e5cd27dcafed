/**
 * RAGFlow-compatible agent (canvas) routes: create, list, get, update (each update with a DSL
 * saves a new version), delete, and versions. Responses keep RAGFlow's shapes and codes.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { localizedText } from '../../src/core/dsl/input';
import { isEvent } from '../../src/core/engine/runEvents';
import { AppError, type Problem } from '../../src/errors';
import type { CanvasRecord, CanvasVersionRecord } from '../../src/io/store/contract';
import { acceptCanvas } from '../canvasInput';
import type { AppDeps } from '../deps';
import { ragflowJson } from '../envelope';
import { restApiPageParams } from '../paging';
import { asBody, requireArguments } from '../ragflowArgs';
import { testDbConnection } from '../services/dbConnection';
import { webhookTraceSince } from '../services/webhookTrace';
import { checkSize, DEFAULT_RUN_INPUT_LIMITS } from '../services/runLimits';
import { acceptPipelineCanvas, isPipelineRequest, PIPELINE_CATEGORY } from '../services/pipelines';
import { parseMessagePolicy } from '../services/turns/messagePolicy';

const ragflow = { ragflow: true } as const;

export const AGENT_CATEGORY = 'agent_canvas';

/** RAGFlow's agent dict (UserCanvasService.get_by_canvas_id). */
export function agentView(c: CanvasRecord, withDsl = true): Record<string, unknown> {
  return {
    id: c.id,
    avatar: c.avatar,
    title: c.title,
    description: c.description,
    ...(withDsl ? { dsl: c.dsl } : {}),
    permission: 'me',
    user_id: c.tenant_id,
    tenant_id: c.tenant_id,
    canvas_type: c.canvas_type,
    canvas_category: c.canvas_category,
    create_time: c.create_time,
    update_time: c.update_time,
    create_date: c.create_date,
    update_date: c.update_date,
    nickname: c.tenant_id,
    tenant_avatar: null,
  };
}

function versionView(v: CanvasVersionRecord): Record<string, unknown> {
  return { ...v };
}

/** Saved anyway, as RAGFlow does, but said (an extra top-level key RAGFlow clients ignore). */
function warningsOf(warnings: Problem[]): { warnings?: Problem[] } {
  return warnings.length > 0 ? { warnings } : {};
}

const noAccess = () => new AppError('NO_PERMISSION', 'Make sure you have permission to access the agent.');

// Titles and descriptions may come per language, as in RAGFlow's templates.
const localized = z.preprocess((v) => (v === null || v === undefined ? v : (localizedText(v) ?? v)), z.string().nullish());

const AgentBody = z.looseObject({
  title: localized,
  description: localized,
  avatar: z.string().nullish(),
  canvas_type: z.string().nullish(),
  dsl: z.unknown().optional(),
  /** What a message does while a session of the agent runs (docs/API.md, "message_policy"); kept beside the agent, not in its DSL. */
  message_policy: z.unknown().optional(),
});

function body(raw: unknown): z.infer<typeof AgentBody> {
  const parsed = AgentBody.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ path: `$.${i.path.join('.')}`, message: i.message }));
    throw new AppError('BAD_REQUEST', problems.map((p) => `${p.path}: ${p.message}`).join('; '), { problems });
  }
  return parsed.data;
}

export async function agentsPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { store } = deps;
  // A canvas too large to start a run with is refused when saved, not when its first run starts.
  const checkCanvasSize = (dsl: unknown) => checkSize('dsl', dsl, (deps.runInputLimits ?? DEFAULT_RUN_INPUT_LIMITS).dslBytes);

  app.post(
    '/api/v1/agents',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Create an agent from a DSL (bare or RAGFlow export form)' } },
    async (request) => {
      const b = body(request.body);
      if (b.dsl === undefined || b.dsl === null) throw new AppError('BAD_REQUEST', 'No DSL data in request.');
      const messagePolicy = parseMessagePolicy(b.message_policy, '$.body.message_policy');
      // An ingestion pipeline (RAGFlow's canvas_category "dataflow_canvas") is validated by the pipeline compiler.
      const pipeline = isPipelineRequest(b);
      const canvas = pipeline ? acceptPipelineCanvas(b.dsl) : acceptCanvas(b.dsl);
      checkCanvasSize(canvas.dsl);
      if (b.title === undefined || b.title === null) throw new AppError('BAD_REQUEST', 'No title in request.');
      const title = b.title.trim();
      if (!title) throw new AppError('BAD_REQUEST', 'The title must not be empty.');
      if (await store.canvases.findByTitle(request.tenantId, title)) throw new AppError('DUPLICATE', `${title} already exists.`);
      const created = await store.canvases.create({
        tenantId: request.tenantId,
        title,
        description: b.description ?? canvas.meta.description ?? null,
        avatar: b.avatar ?? canvas.meta.avatar ?? null,
        canvasType: b.canvas_type ?? canvas.meta.canvas_type ?? null,
        canvasCategory: pipeline ? PIPELINE_CATEGORY : AGENT_CATEGORY,
        dsl: canvas.dsl,
      });
      if (messagePolicy) await store.messageQueue.setPolicy(request.tenantId, created.id, messagePolicy);
      return { ...ragflowJson({ ...agentView(created), message_policy: messagePolicy ?? 'reject' }), ...warningsOf(canvas.warnings) };
    },
  );

  app.get('/api/v1/agents', { config: ragflow, schema: { tags: ['agents'], summary: 'List agents' } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const paging = restApiPageParams(q, 'create_time');
    const { items, total } = await store.canvases.list(request.tenantId, {
      ...paging,
      keywords: q.keywords || undefined,
      id: q.id || undefined,
      title: q.title || undefined,
      // RAGFlow: comma-separated, any of them (its synthetic compilation_template_group lists no agents).
      categories: q.canvas_category
        ? q.canvas_category
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean)
        : undefined,
      canvasType: q.canvas_type || undefined,
    });
    return ragflowJson({ canvas: items.map((c) => agentView(c, false)), total });
  });

  app.get('/api/v1/agents/:agent_id', { config: ragflow, schema: { tags: ['agents'], summary: 'Get an agent with its DSL' } }, async (request) => {
    const { agent_id } = request.params as { agent_id: string };
    const canvas = await store.canvases.get(request.tenantId, agent_id);
    if (!canvas) throw new AppError('NOT_FOUND', 'canvas not found.');
    // RAGFlow lists the datasets that use a pipeline with it.
    const datasets =
      canvas.canvas_category === PIPELINE_CATEGORY
        ? (await store.knowledge.datasets.list(request.tenantId, { page: 1, pageSize: 0, orderby: 'create_time', desc: true, pipelineId: canvas.id })).items
        : null;
    return ragflowJson({
      ...agentView(canvas),
      message_policy: (await store.messageQueue.policyOf(request.tenantId, canvas.id)) ?? 'reject',
      last_publish_time: null,
      ...(datasets ? { datasets: datasets.map((d) => ({ id: d.id, name: d.name, avatar: d.avatar })) } : {}),
    });
  });

  app.put(
    '/api/v1/agents/:agent_id',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Update an agent; a new DSL saves a new version' } },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      const existing = await store.canvases.get(request.tenantId, agent_id);
      if (!existing) throw noAccess();
      const b = body(request.body);
      const messagePolicy = parseMessagePolicy(b.message_policy, '$.body.message_policy');
      const accept = existing.canvas_category === PIPELINE_CATEGORY ? acceptPipelineCanvas : acceptCanvas;
      const accepted = b.dsl === undefined || b.dsl === null ? undefined : accept(b.dsl);
      if (accepted) checkCanvasSize(accepted.dsl);
      const dsl = accepted?.dsl;
      let title: string | undefined;
      if (b.title !== undefined && b.title !== null) {
        title = b.title.trim();
        if (!title) throw new AppError('BAD_REQUEST', 'The title must not be empty.');
        const clash = await store.canvases.findByTitle(request.tenantId, title);
        if (clash && clash.id !== agent_id) throw new AppError('DUPLICATE', `${title} already exists.`);
      }
      const updated = await store.canvases.update(request.tenantId, agent_id, {
        title,
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.avatar !== undefined ? { avatar: b.avatar } : {}),
        ...(b.canvas_type !== undefined ? { canvasType: b.canvas_type } : {}),
        dsl,
      });
      if (!updated) throw noAccess();
      if (messagePolicy) await store.messageQueue.setPolicy(request.tenantId, agent_id, messagePolicy);
      return { ...ragflowJson({ update_time: updated.update_time }), ...warningsOf(accepted?.warnings ?? []) };
    },
  );

  app.delete('/api/v1/agents/:agent_id', { config: ragflow, schema: { tags: ['agents'], summary: 'Delete an agent' } }, async (request) => {
    const { agent_id } = request.params as { agent_id: string };
    if (!(await store.canvases.delete(request.tenantId, agent_id)))
      throw new AppError('NO_PERMISSION', 'Only the owner of the agent is authorized for this operation.');
    return ragflowJson(true);
  });

  app.get(
    '/api/v1/agents/:agent_id/versions',
    { config: ragflow, schema: { tags: ['agents'], summary: 'List the saved versions of an agent, newest first' } },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw noAccess();
      return ragflowJson((await store.canvases.listVersions(request.tenantId, agent_id)).map(versionView));
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/logs/:message_id',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Tool-call trace of one reply (empty object when it called no tool)' } },
    async (request) => {
      const { agent_id, message_id } = request.params as { agent_id: string; message_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw noAccess();
      const calls = await store.events.listByMessage(request.tenantId, agent_id, message_id, 'tool_call');
      if (calls.length === 0) return ragflowJson({});
      const byComponent = new Map<string, unknown[]>();
      for (const e of calls) {
        if (!isEvent(e, 'tool_call')) continue;
        const id = String(e.data.component_id ?? '');
        byComponent.set(id, [...(byComponent.get(id) ?? []), e.data]);
      }
      return ragflowJson([...byComponent].map(([component_id, trace]) => ({ component_id, trace })));
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/versions/:version_id',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Get one saved version' } },
    async (request) => {
      const { agent_id, version_id } = request.params as { agent_id: string; version_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw noAccess();
      const version = await store.canvases.getVersion(request.tenantId, agent_id, version_id);
      if (!version) throw new AppError('NOT_FOUND', 'Version not found.');
      return ragflowJson(versionView(version));
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/webhook/logs',
    {
      config: ragflow,
      schema: { tags: ['agents'], summary: 'Poll the trace of the webhook test calls (`/webhook/test`) of an agent since `since_ts`' },
    },
    async (request) => {
      const { agent_id } = request.params as { agent_id: string };
      if (!(await store.canvases.get(request.tenantId, agent_id))) throw new AppError('NOT_FOUND', 'Canvas not found.');
      const q = request.query as Record<string, string | undefined>;
      // Python's `request.args.get("since_ts", type=float)`: absent or not a number is None.
      const since = q.since_ts !== undefined && q.since_ts.trim() !== '' && Number.isFinite(Number(q.since_ts)) ? Number(q.since_ts) : null;
      return ragflowJson(webhookTraceSince(agent_id, since, q.webhook_id ?? null));
    },
  );

  app.post(
    '/api/v1/agents/test_db_connection',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Check that an ExeSQL database answers `SELECT 1` (postgres, mysql, mariadb)' } },
    async (request) => {
      const body = asBody(request.body);
      requireArguments(body, ['db_type', 'database', 'username', 'host', 'port', 'password']);
      return ragflowJson(await testDbConnection(body));
    },
  );

  app.post(
    '/api/v1/agents/rerun',
    { config: ragflow, schema: { tags: ['agents'], summary: 'Re-run an ingestion pipeline from a component (RAGFlow dataflow logs; none here)' } },
    async (request) => {
      const body = asBody(request.body);
      requireArguments(body, ['id', 'dsl', 'component_id']);
      // RAGFlow looks `id` up among its ingestion-pipeline operation logs. There are no ingestion
      // pipelines (dataflow canvases) here, so no log is ever found: RAGFlow's own answer for that.
      throw new AppError('NOT_FOUND', 'Document not found.');
    },
  );
}
