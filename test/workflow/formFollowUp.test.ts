/**
 * A paused UserFillUp that reminds and escalates, on the Temporal dev server with short timers
 * (seconds): reminders reach a local webhook receiver (real HTTP) at most `remind_max` times and a
 * local SMTP server; an answer before the first reminder sends none; nobody answering takes the
 * `escalate_goto` branch; a receiver's 4xx is not retried and the run still waits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store, StoredEvent } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, submitInputsUpdate, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startSmtpServer, type SmtpStandIn } from '../helpers/smtpServer';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

let store: Store;
let llm: ScriptedLlm;
let smtp: SmtpStandIn;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
let receiver: http.Server;
let hookBase = '';
const received: Received[] = [];
const tenantId = 'tenant-form-follow-up';
const PASSWORD = 'smtp-reminder-password-7';

beforeAll(async () => {
  [store, llm, smtp, temporal] = await Promise.all([
    openStore({}),
    startScriptedLlm(),
    startSmtpServer({ username: 'bot@example.test', password: PASSWORD }),
    connectTemporal(),
  ]);
  receiver = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(text || '{}') as Record<string, unknown> });
      res.statusCode = req.url?.startsWith('/gone') ? 410 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await store.tenants.ensure(tenantId, 'form follow-up tests');
  // The receiver and the SMTP server are on loopback, which the network guard blocks unless allowed; the SMTP server speaks no TLS.
  worker = await startWorker({
    nativeConnection: temporal.nativeConnection,
    store,
    llmBaseUrl: llm.url,
    env: { SMTP_ALLOW_INSECURE: '1', NETWORK_ALLOW_HOSTS: '127.0.0.1' },
  });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS } };
});

afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await Promise.all([temporal?.close(), llm?.stop(), smtp?.stop(), store?.close()]);
});

const formCanvas = (followUp: Record<string, unknown>) =>
  dsl({
    begin: { name: 'Begin', downstream: ['UserFillUp:approve'] },
    'UserFillUp:approve': {
      name: 'UserFillUp',
      params: { tips: 'Approve the refund?', inputs: { approved: { type: 'boolean', optional: false } }, ...followUp },
      downstream: ['Message:ok'],
    },
    'Message:ok': { name: 'Message', params: { content: ['Approved: {UserFillUp:approve@approved}.'] } },
    'Message:escalated': { name: 'Message', params: { content: ['Escalated to a manager.'] } },
  });

async function launch(title: string, canvas: Record<string, unknown>) {
  const saved = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(deps, {
    tenantId,
    canvas: saved,
    sessionId: null,
    query: 'refund 42',
    inputs: null,
    files: [],
    userId: 'u1',
    session: null,
  });
  return { ...launched, handle: temporal.client.workflow.getHandle(launched.workflowId) };
}

async function finish(launched: Awaited<ReturnType<typeof launch>>): Promise<{ result: CanvasRunResult; events: StoredEvent[]; history: string }> {
  const result = (await launched.handle.result()) as CanvasRunResult;
  return { result, events: await store.events.list(launched.runId, null, 10_000), history: JSON.stringify(await launched.handle.fetchHistory()) };
}

async function pausedAt(runId: string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const events = await store.events.list(runId, null, 10_000);
    const pause = events.find((e) => e.event === 'user_inputs');
    if (pause) return pause.seq;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} never paused`);
}

/** The history's payloads (patch markers, activity inputs) decoded from base64. */
const decodedPayloads = (history: string): string =>
  [...history.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')).join('\n');

const hooksFor = (runId: string) => received.filter((r) => r.body.task_id === runId);

describe('a paused form that reminds and escalates', () => {
  it('posts a reminder to the webhook every remind_after, at most remind_max times, then takes the escalation branch', async () => {
    const run = await launch(
      'remind and escalate',
      formCanvas({ remind_after: 1, remind_max: 2, remind_webhook: `${hookBase}/reminders`, escalate_after: 6, escalate_goto: ['Message:escalated'] }),
    );
    const { result, events, history } = await finish(run);
    expect(result).toMatchObject({ status: 'finished', content: 'Escalated to a manager.' });

    const hooks = hooksFor(run.runId);
    expect(hooks.map((h) => h.body.attempt)).toEqual([1, 2]);
    expect(hooks[0]).toMatchObject({
      path: '/reminders',
      body: {
        task_id: run.runId,
        component_id: 'UserFillUp:approve',
        tips: 'Approve the refund?',
        remind_max: 2,
        form: { fields: { approved: { type: 'boolean', optional: false } }, submit_url: `/api/v1/runs/${run.runId}/inputs` },
      },
    });
    const names = events.map((e) => e.event);
    expect(names.filter((n) => n === 'form_reminded')).toHaveLength(2);
    expect(names.indexOf('form_escalated')).toBeGreaterThan(names.lastIndexOf('form_reminded'));
    expect(events.find((e) => e.event === 'form_reminded')!.data).toEqual({
      component_id: 'UserFillUp:approve',
      attempt: 1,
      channel: 'webhook',
      delivered: true,
    });
    expect(events.find((e) => e.event === 'form_escalated')!.data).toEqual({ component_ids: ['UserFillUp:approve'], waited_s: 6, goto: ['Message:escalated'] });
    const formDone = events.find((e) => e.event === 'node_finished' && e.data.component_id === 'UserFillUp:approve')!;
    expect((formDone.data as { outputs: Record<string, unknown> }).outputs).toMatchObject({ escalated: true });
    expect(decodedPayloads(history)).toContain('"id":"form-remind-escalate"');
  }, 120_000);

  it('sends no reminder when the form is answered before remind_after', async () => {
    const run = await launch(
      'answered early',
      formCanvas({ remind_after: 3, remind_max: 3, remind_webhook: `${hookBase}/reminders`, escalate_after: 5, escalate_goto: ['Message:escalated'] }),
    );
    const seq = await pausedAt(run.runId);
    await run.handle.executeUpdate(submitInputsUpdate, { args: [{ inputs: { approved: true }, pauseSeq: seq }] });
    const { result, events } = await finish(run);
    expect(result).toMatchObject({ status: 'finished', content: 'Approved: true.' });
    // Past the first reminder's and the escalation's time: nothing went out.
    await new Promise((r) => setTimeout(r, 6000));
    expect(hooksFor(run.runId)).toEqual([]);
    expect(events.map((e) => e.event)).not.toContain('form_reminded');
    expect(events.map((e) => e.event)).not.toContain('form_escalated');
  }, 120_000);

  it('reminds by email over the SMTP settings of remind_email, the password kept out of history', async () => {
    const before = smtp.mails.length;
    const run = await launch(
      'email reminder',
      formCanvas({
        remind_after: 1,
        remind_max: 1,
        remind_email: {
          smtp_server: '127.0.0.1',
          smtp_port: smtp.port,
          email: 'bot@example.test',
          password: PASSWORD,
          to_email: 'manager@example.test',
          subject: 'Refund waiting',
        },
        escalate_after: 4,
        escalate_goto: ['Message:escalated'],
      }),
    );
    const { result, events, history } = await finish(run);
    expect(result.status).toBe('finished');
    expect(smtp.mails.length).toBe(before + 1);
    const mail = smtp.mails.at(-1)!;
    expect(mail.rcptTo).toEqual(['manager@example.test']);
    expect(mail.headers.subject).toBe('Refund waiting (1/1)');
    expect(mail.text).toContain('Approve the refund?');
    expect(mail.text).toContain(`/api/v1/runs/${run.runId}/inputs`);
    expect(events.find((e) => e.event === 'form_reminded')!.data).toMatchObject({ channel: 'email', delivered: true });
    expect(decodedPayloads(history)).not.toContain(PASSWORD);
    expect(decodedPayloads(history)).toContain('__secret__');
  }, 120_000);

  it('records a reminder the webhook refuses (4xx) as undelivered, without retrying it, and keeps waiting', async () => {
    const run = await launch(
      'refused reminder',
      formCanvas({ remind_after: 1, remind_max: 1, remind_webhook: `${hookBase}/gone`, escalate_after: 4, escalate_goto: ['Message:escalated'] }),
    );
    const { result, events } = await finish(run);
    expect(result).toMatchObject({ status: 'finished', content: 'Escalated to a manager.' });
    expect(hooksFor(run.runId)).toHaveLength(1);
    const reminded = events.find((e) => e.event === 'form_reminded')!.data as { delivered: boolean; error: string };
    expect(reminded.delivered).toBe(false);
    expect(reminded.error).toContain('410');
  }, 120_000);
});
