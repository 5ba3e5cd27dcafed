/**
 * Agent schedules (our routes, HTTP statuses): `POST/GET /api/v1/agents/{id}/schedules`,
 * `GET/PUT/DELETE …/schedules/{schedule_id}`, and `POST …/{schedule_id}/pause`, `/unpause`,
 * `/trigger`, `/backfill`. Backed by Temporal Schedules (api/services/schedules.ts); each action is
 * a normal run of the agent (workflows/scheduledRun.ts), in a session of its own or in `session_id`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';
import { startableCanvas } from '../services/canvasVersions';
import { checkBeginInputs } from '../services/sessions';
import {
  actOnSchedule,
  createSchedule,
  deleteSchedule,
  describeSchedule,
  listSchedules,
  OVERLAP_POLICIES,
  updateSchedule,
  type Overlap,
  type ScheduleDeps,
  type ScheduleRequest,
} from '../services/schedules';

const Overlaps = z.enum(Object.keys(OVERLAP_POLICIES) as [Overlap, ...Overlap[]]);

const ScheduleBody = z
  .strictObject({
    /** One cron expression or several (Temporal's cron: 5 fields, or @hourly, @every 10m...). */
    cron: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    interval_seconds: z.number().int().min(1).optional(),
    offset_seconds: z.number().int().min(0).optional(),
    /** IANA time zone of the cron expressions (default UTC). */
    time_zone: z
      .string()
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat('en', { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, 'must be an IANA time zone, e.g. Europe/Paris')
      .optional(),
    query: z.string().default(''),
    inputs: z.record(z.string(), z.unknown()).nullable().default(null),
    /** Run every action in this session (its next turn); absent: a new session per run. */
    session_id: z.string().min(1).nullable().default(null),
    overlap: Overlaps.default('skip'),
    paused: z.boolean().default(false),
    note: z.string().max(500).optional(),
  })
  .refine((b) => (b.cron === undefined) !== (b.interval_seconds === undefined), {
    message: 'give either cron or interval_seconds, not both and not neither',
    path: ['cron'],
  });

const AgentParams = z.object({ agent_id: z.string().min(1) });
const ScheduleParams = z.object({ agent_id: z.string().min(1), schedule_id: z.string().min(1) });
const NoteBody = z.strictObject({ note: z.string().max(500).optional() }).optional();
const TriggerBody = z.strictObject({ overlap: Overlaps.optional() }).optional();
const BackfillBody = z.strictObject({ start_at: z.iso.datetime({ offset: true }), end_at: z.iso.datetime({ offset: true }), overlap: Overlaps.optional() });

type Body = z.infer<typeof ScheduleBody>;

export async function schedulesPlugin(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const sched: ScheduleDeps = { client: deps.temporal, taskQueue: deps.taskQueue };

  /** Checks the agent, the session and Begin's inputs as a run's start would, before Temporal holds anything. */
  async function requestOf(tenantId: string, agentId: string, b: Body): Promise<ScheduleRequest> {
    const canvas = await deps.store.canvases.get(tenantId, agentId);
    if (!canvas) throw new AppError('NOT_FOUND', `No agent ${agentId}`, { problems: [{ path: '$.path.agent_id', message: 'no such agent' }] });
    const session = b.session_id ? await deps.store.sessions.get(tenantId, agentId, b.session_id) : null;
    if (b.session_id && !session)
      throw new AppError('NOT_FOUND', `No session ${b.session_id} of this agent`, { problems: [{ path: '$.body.session_id', message: 'no such session' }] });
    const { compiled } = startableCanvas(canvas, { query: b.query, inputs: b.inputs, files: [] }, deps.runInputLimits);
    checkBeginInputs(compiled, { inputs: b.inputs, query: b.query, firstTurn: session ? session.messages.every((m) => m.role !== 'user') : true });
    return { ...b, cron: typeof b.cron === 'string' ? [b.cron] : b.cron };
  }

  app.post(
    '/api/v1/agents/:agent_id/schedules',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Schedule runs of an agent: cron (with time_zone) or interval_seconds; query, inputs, session_id, overlap',
        params: AgentParams,
        body: ScheduleBody,
      },
    },
    async (request, reply) => {
      const { agent_id } = request.params as z.infer<typeof AgentParams>;
      const req = await requestOf(request.tenantId, agent_id, request.body as Body);
      const id = await createSchedule(sched, request.tenantId, agent_id, req);
      return reply.status(201).send(await describeSchedule(sched, request.tenantId, agent_id, id));
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/schedules',
    { schema: { tags: ['schedules'], summary: 'The agent’s schedules with their next and recent actions', params: AgentParams } },
    async (request) => {
      const { agent_id } = request.params as z.infer<typeof AgentParams>;
      if (!(await deps.store.canvases.get(request.tenantId, agent_id)))
        throw new AppError('NOT_FOUND', `No agent ${agent_id}`, { problems: [{ path: '$.path.agent_id', message: 'no such agent' }] });
      return { items: await listSchedules(sched, request.tenantId, agent_id) };
    },
  );

  app.get(
    '/api/v1/agents/:agent_id/schedules/:schedule_id',
    { schema: { tags: ['schedules'], summary: 'One schedule: its spec, state, next action times and recent actions', params: ScheduleParams } },
    async (request) => {
      const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
      return describeSchedule(sched, request.tenantId, agent_id, schedule_id);
    },
  );

  app.put(
    '/api/v1/agents/:agent_id/schedules/:schedule_id',
    { schema: { tags: ['schedules'], summary: 'Replace a schedule’s spec, run request and policies', params: ScheduleParams, body: ScheduleBody } },
    async (request) => {
      const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
      const req = await requestOf(request.tenantId, agent_id, request.body as Body);
      await updateSchedule(sched, request.tenantId, agent_id, schedule_id, req);
      return describeSchedule(sched, request.tenantId, agent_id, schedule_id);
    },
  );

  app.delete(
    '/api/v1/agents/:agent_id/schedules/:schedule_id',
    { schema: { tags: ['schedules'], summary: 'Delete a schedule (runs it started go on)', params: ScheduleParams } },
    async (request, reply) => {
      const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
      await deleteSchedule(sched, request.tenantId, agent_id, schedule_id);
      return reply.status(204).send();
    },
  );

  for (const kind of ['pause', 'unpause'] as const) {
    app.post(
      `/api/v1/agents/:agent_id/schedules/:schedule_id/${kind}`,
      {
        schema: {
          tags: ['schedules'],
          summary: `${kind === 'pause' ? 'Pause' : 'Unpause'} a schedule (optional note)`,
          params: ScheduleParams,
          body: NoteBody,
        },
      },
      async (request) => {
        const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
        const note = (request.body as z.infer<typeof NoteBody>)?.note;
        await actOnSchedule(sched, request.tenantId, agent_id, schedule_id, { kind, ...(note ? { note } : {}) });
        return describeSchedule(sched, request.tenantId, agent_id, schedule_id);
      },
    );
  }

  app.post(
    '/api/v1/agents/:agent_id/schedules/:schedule_id/trigger',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Take the schedule’s action now (overlap: the schedule’s unless given)',
        params: ScheduleParams,
        body: TriggerBody,
      },
    },
    async (request, reply) => {
      const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
      const overlap = (request.body as z.infer<typeof TriggerBody>)?.overlap;
      await actOnSchedule(sched, request.tenantId, agent_id, schedule_id, { kind: 'trigger', ...(overlap ? { overlap } : {}) });
      return reply.status(202).send({ triggered: true });
    },
  );

  app.post(
    '/api/v1/agents/:agent_id/schedules/:schedule_id/backfill',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Take the actions the schedule would have taken in a past window [start_at, end_at]',
        params: ScheduleParams,
        body: BackfillBody,
      },
    },
    async (request, reply) => {
      const { agent_id, schedule_id } = request.params as z.infer<typeof ScheduleParams>;
      const b = request.body as z.infer<typeof BackfillBody>;
      const start = new Date(b.start_at);
      const end = new Date(b.end_at);
      if (end <= start)
        throw new AppError('BAD_REQUEST', 'end_at must be after start_at', { problems: [{ path: '$.body.end_at', message: 'must be after start_at' }] });
      await actOnSchedule(sched, request.tenantId, agent_id, schedule_id, { kind: 'backfill', start, end, ...(b.overlap ? { overlap: b.overlap } : {}) });
      return reply.status(202).send({ backfilled: { start_at: start.toISOString(), end_at: end.toISOString() } });
    },
  );
}
