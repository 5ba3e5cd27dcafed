/**
 * Agent schedules over HTTP on the dev server's Temporal Schedules: an interval schedule fires
 * normal runs (own sessions, started_by schedule), a one-minute cron fires at the minute, a paused
 * one does not until triggered, overlap
 * skip takes no action while the previous run still runs, and another tenant cannot see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startHarness, type Harness } from '../helpers/appHarness';
import { dsl } from '../helpers/canvasKit';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ schedules: true });
}, 120_000);
afterAll(async () => h?.close());

type Envelope = { code: number; data?: { id: string } };
type RunItem = { id: string; session_id: string | null; status: string; started_by: { kind: string; id: string } };
type Schedule = { id: string; paused: boolean; actions_taken: number; actions_skipped_overlap: number; next_action_times: string[]; running_actions: number };

async function createAgent(prompt: string): Promise<string> {
  const res = await api(h, 'POST', '/api/v1/agents', {
    body: {
      title: `scheduled ${prompt} ${Date.now()}`,
      dsl: dsl({
        begin: { name: 'Begin', downstream: ['LLM:a'] },
        'LLM:a': { name: 'LLM', params: { llm_id: 'scripted@OpenAI', sys_prompt: prompt }, downstream: ['Message:m'] },
        'Message:m': { name: 'Message', params: { content: ['{LLM:a@content}'] } },
      }),
    },
  });
  return (res.body as Envelope).data!.id;
}

async function runsOf(agentId: string): Promise<RunItem[]> {
  const res = await api(h, 'GET', `/api/v1/runs?canvas_id=${agentId}`);
  return (res.body as { items: RunItem[] }).items;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function schedule(agentId: string, body: Record<string, unknown>): Promise<Schedule> {
  const res = await api(h, 'POST', `/api/v1/agents/${agentId}/schedules`, { body });
  expect(res.status, res.text).toBe(201);
  return res.body as Schedule;
}

const remove = (agentId: string, id: string) => api(h, 'DELETE', `/api/v1/agents/${agentId}/schedules/${id}`);

describe('agent schedules', () => {
  it('fire an interval schedule as normal runs, each in its own session, started_by the schedule', async () => {
    h.llm.whenPromptIncludes('Scheduled report.', { content: 'daily report' });
    const agentId = await createAgent('Scheduled report.');
    const s = await schedule(agentId, { interval_seconds: 2, query: 'report' });
    expect(s.next_action_times.length).toBeGreaterThan(0);
    try {
      const runs = await until(
        'two finished scheduled runs',
        () => runsOf(agentId),
        (r) => r.filter((x) => x.status === 'finished').length >= 2,
      );
      const finished = runs.filter((x) => x.status === 'finished');
      for (const r of finished) expect(r.started_by).toEqual({ kind: 'schedule', id: s.id });
      expect(new Set(finished.map((r) => r.session_id)).size).toBe(finished.length);
    } finally {
      await remove(agentId, s.id);
    }
    expect((await api(h, 'GET', `/api/v1/agents/${agentId}/schedules/${s.id}`)).status).toBe(404);
  }, 120_000);

  it('fire a one-minute cron schedule at the minute, in its time zone', async () => {
    h.llm.whenPromptIncludes('Minute cron.', { content: 'on the minute' });
    const agentId = await createAgent('Minute cron.');
    const s = await schedule(agentId, { cron: '* * * * *', time_zone: 'Asia/Kolkata', query: 'tick' });
    try {
      // Temporal computes the next minute boundary; the first action is at most a minute away.
      const next = Date.parse(s.next_action_times[0]!);
      expect(new Date(next).getUTCSeconds()).toBe(0);
      expect(next - Date.now()).toBeLessThanOrEqual(61_000);
      const runs = await until(
        'the cron run',
        () => runsOf(agentId),
        (r) => r.some((x) => x.status === 'finished'),
        100_000,
      );
      expect(runs.find((x) => x.status === 'finished')!.started_by).toEqual({ kind: 'schedule', id: s.id });
    } finally {
      await remove(agentId, s.id);
    }
  }, 150_000);

  it('take no action while paused, and one when triggered now', async () => {
    h.llm.whenPromptIncludes('Paused schedule.', { content: 'triggered' });
    const agentId = await createAgent('Paused schedule.');
    const s = await schedule(agentId, { interval_seconds: 1, paused: true, query: 'go' });
    try {
      expect(s.paused).toBe(true);
      await new Promise((r) => setTimeout(r, 4000));
      expect(await runsOf(agentId)).toEqual([]);
      const trig = await api(h, 'POST', `/api/v1/agents/${agentId}/schedules/${s.id}/trigger`, { body: {} });
      expect(trig.status, trig.text).toBe(202);
      const runs = await until(
        'the triggered run',
        () => runsOf(agentId),
        (r) => r.some((x) => x.status === 'finished'),
      );
      expect(runs).toHaveLength(1);
    } finally {
      await remove(agentId, s.id);
    }
  }, 120_000);

  it('skip actions while the previous scheduled run still runs (overlap skip)', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.llm.whenPromptIncludes('Slow schedule.', { until: held, then: { content: 'finally' } });
    const agentId = await createAgent('Slow schedule.');
    const s = await schedule(agentId, { interval_seconds: 1, overlap: 'skip', query: 'go' });
    try {
      await until(
        'the first run',
        () => runsOf(agentId),
        (r) => r.length >= 1,
      );
      const view = await until(
        'skipped actions',
        async () => (await api(h, 'GET', `/api/v1/agents/${agentId}/schedules/${s.id}`)).body as Schedule,
        (v) => v.actions_skipped_overlap >= 2,
      );
      expect(view.running_actions).toBe(1);
      expect(await runsOf(agentId)).toHaveLength(1);
    } finally {
      await api(h, 'POST', `/api/v1/agents/${agentId}/schedules/${s.id}/pause`, { body: {} });
      release();
      await remove(agentId, s.id);
    }
  }, 120_000);

  it('refuses a schedule with neither cron nor interval, naming the field, and hides schedules from other tenants', async () => {
    const agentId = await createAgent('Scoped schedule.');
    const bad = await api(h, 'POST', `/api/v1/agents/${agentId}/schedules`, { body: { query: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('cron');
    const s = await schedule(agentId, { cron: '0 9 * * MON-FRI', time_zone: 'Europe/Paris', paused: true });
    try {
      expect((await api(h, 'GET', `/api/v1/agents/${agentId}/schedules/${s.id}`, { key: h.otherKey })).status).toBe(404);
      const mine = await api(h, 'GET', `/api/v1/agents/${agentId}/schedules/${s.id}`);
      expect(mine.body).toMatchObject({ cron: ['0 9 * * MON-FRI'], time_zone: 'Europe/Paris', paused: true });
    } finally {
      await remove(agentId, s.id);
    }
  }, 120_000);
});
