/**
 * The Email tool in real runs on the Temporal dev server against a local SMTP server: as a canvas
 * node (what the server receives, the `success` output, the password kept out of history), as an
 * Agent tool, and a refused login failing the node with TOOL_AUTH and no retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, type LaunchDeps } from '../../api/services/runLauncher';
import { openStore } from '../../src/io/store/store';
import type { Store } from '../../src/io/store/contract';
import { DEFAULT_RUN_SETTINGS, type CanvasRunResult } from '../../workflows/definitions';
import { dsl } from '../helpers/canvasKit';
import { startScriptedLlm, type RecordedCall, type ScriptedLlm } from '../helpers/scriptedLlm';
import { startSmtpServer, type SmtpStandIn } from '../helpers/smtpServer';
import { connectTemporal, startWorker, type RunningWorker, type TemporalHandles } from '../helpers/temporal';

let store: Store;
let llm: ScriptedLlm;
let smtp: SmtpStandIn;
let temporal: TemporalHandles;
let worker: RunningWorker;
let deps: LaunchDeps;
const tenantId = 'tenant-email';
const PASSWORD = 'smtp-app-password-42';

beforeAll(async () => {
  [store, llm, smtp, temporal] = await Promise.all([
    openStore({}),
    startScriptedLlm(),
    startSmtpServer({ username: 'bot@example.test', password: PASSWORD }),
    connectTemporal(),
  ]);
  await store.tenants.ensure(tenantId, 'email tests');
  // The local SMTP server speaks no TLS (production keeps STARTTLS required) and is on loopback,
  // which the network guard blocks unless allowed.
  worker = await startWorker({
    nativeConnection: temporal.nativeConnection,
    store,
    llmBaseUrl: llm.url,
    env: { SMTP_ALLOW_INSECURE: '1', NETWORK_ALLOW_HOSTS: '127.0.0.1' },
  });
  deps = { store, client: temporal.client, taskQueue: worker.taskQueue, settings: { ...DEFAULT_RUN_SETTINGS, heartbeatTimeoutMs: 2000 } };
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all([temporal?.close(), llm?.stop(), smtp?.stop(), store?.close()]);
});

const smtpParams = () => ({ smtp_server: '127.0.0.1', smtp_port: smtp.port, email: 'bot@example.test', password: PASSWORD, sender_name: 'Canvas Bot' });

async function run(title: string, canvas: Record<string, unknown>, query: string) {
  const saved = await store.canvases.create({ tenantId, title: `${title} ${Date.now()}`, dsl: canvas });
  const launched = await launchRun(deps, { tenantId, canvas: saved, sessionId: null, query, inputs: null, files: [], userId: 'u1', session: null });
  const handle = temporal.client.workflow.getHandle(launched.workflowId);
  const result = (await handle.result()) as CanvasRunResult;
  const events = await store.events.list(launched.runId, null, 10_000);
  return { result, events, history: JSON.stringify(await handle.fetchHistory()) };
}

describe('the Email tool', () => {
  it('sends the node email: sender, recipients, CC, subject and body reach the SMTP server', async () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Email:e'] },
      'Email:e': {
        name: 'Email',
        params: {
          ...smtpParams(),
          to_email: '{sys.query}',
          cc_email: 'cc1@example.test, cc2@example.test',
          subject: 'Report for {sys.query}',
          content: 'Hello,\nthe weekly report is ready.',
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['Sent: {Email:e@success}'] } },
    });
    const before = smtp.mails.length;
    const r = await run('email node', canvas, 'dana@example.test');
    expect(r.result.status).toBe('finished');

    expect(smtp.mails.length).toBe(before + 1);
    const mail = smtp.mails.at(-1)!;
    expect(mail.mailFrom).toBe('bot@example.test');
    expect(mail.rcptTo).toEqual(['dana@example.test', 'cc1@example.test', 'cc2@example.test']);
    expect(mail.headers).toMatchObject({
      from: 'Canvas Bot <bot@example.test>',
      to: 'dana@example.test',
      cc: 'cc1@example.test, cc2@example.test',
      subject: 'Report for dana@example.test',
    });
    expect(mail.text).toBe('Hello,\nthe weekly report is ready.');
    expect(smtp.logins.at(-1)).toEqual({ username: 'bot@example.test', password: PASSWORD, ok: true });

    const done = r.events.find((e) => e.event === 'node_finished' && e.data.component_id === 'Email:e')!.data as {
      outputs: Record<string, unknown>;
      inputs: unknown;
    };
    expect(done.outputs).toMatchObject({ success: true });
    expect(r.result.content).toMatch(/^Sent: (true|True)$/);
    // The password came from the stored canvas, never through workflow history.
    expect(r.history).not.toContain(PASSWORD);
  });

  it('is called by an Agent with the arguments RAGFlow gives the model', async () => {
    const seen: RecordedCall[] = [];
    llm.when((call) => {
      if (!call.body.messages.some((m) => typeof m.content === 'string' && m.content.includes('MARK-mailer'))) return undefined;
      seen.push(call);
      if (seen.length === 1)
        return {
          toolCalls: [
            {
              id: 'm1',
              name: 'email_0',
              arguments: JSON.stringify({ to_email: 'erin@example.test', subject: 'Your summary', content: '<p>All <b>done</b>.</p>' }),
            },
          ],
        };
      return { content: 'I emailed Erin.' };
    });
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Agent:a'] },
      'Agent:a': {
        name: 'Agent',
        params: {
          llm_id: 'scripted@OpenAI',
          sys_prompt: 'MARK-mailer You send emails.',
          tools: [{ component_name: 'Email', name: 'Email', params: smtpParams() }],
        },
        downstream: ['Message:m'],
      },
      'Message:m': { name: 'Message', params: { content: ['{Agent:a@content}'] } },
    });
    const r = await run('email agent', canvas, 'mail erin her summary');
    expect(r.result).toMatchObject({ status: 'finished', content: 'I emailed Erin.' });

    const schema = (seen[0]!.body.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } } }>)[0]!
      .function;
    expect(schema.name).toBe('email_0');
    expect(Object.keys(schema.parameters.properties).sort()).toEqual(['cc_email', 'content', 'subject', 'to_email']);
    expect(schema.parameters.required).toEqual(['to_email']);

    const mail = smtp.mails.at(-1)!;
    expect(mail.rcptTo).toEqual(['erin@example.test']);
    expect(mail.headers.subject).toBe('Your summary');
    expect(mail.html).toBe('<p>All <b>done</b>.</p>');
    expect(seen[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'm1',
      content: 'Email sent to erin@example.test with subject "Your summary".',
    });
    expect(r.history).not.toContain(PASSWORD);
  });

  it('fails the node with TOOL_AUTH when the server refuses the login, without retrying', async () => {
    const canvas = dsl({
      begin: { name: 'Begin', downstream: ['Email:e'] },
      'Email:e': {
        name: 'Email',
        params: {
          ...smtpParams(),
          password: 'not-the-password',
          to_email: 'x@example.test',
          subject: 'Hi',
          content: 'Hi',
          max_retries: 2,
          delay_after_error: 0,
        },
      },
    });
    const logins = smtp.logins.length;
    const r = await run('email refused', canvas, 'go');
    expect(r.result.status).toBe('failed');
    expect(r.result.error).toMatch(/SMTP authentication failed for bot@example\.test .*Check the SMTP username \(email\) and the password/);
    expect(smtp.logins.length - logins).toBe(1);
    expect(r.history).toContain('"type":"TOOL_AUTH"');
    expect(r.history).not.toContain('not-the-password');
  });
});
