/**
 * The Email executor against a local SMTP server: what goes out (envelope, headers, bodies), the
 * TLS rule (STARTTLS required unless SMTP_ALLOW_INSECURE), and how refusals are reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '../../src/io/tools/email';
import type { ToolExecution } from '../../src/io/tools/executor';
import { startSmtpServer, type SmtpStandIn } from '../helpers/smtpServer';
import { failure } from '../helpers/failure';

let smtp: SmtpStandIn;
// The SMTP server is on loopback, which the network guard blocks unless allowed.
const allowLocal = { NETWORK_ALLOW_HOSTS: '127.0.0.1' };
const insecure = { ...allowLocal, SMTP_ALLOW_INSECURE: '1' };

beforeAll(async () => {
  smtp = await startSmtpServer({ username: 'mailer@example.test', password: 'app-pass' });
});
afterAll(async () => smtp?.stop());

const config = () => ({ smtp_server: '127.0.0.1', smtp_port: smtp.port, email: 'mailer@example.test', password: 'app-pass', sender_name: 'Report Bot' });

function send(x: Partial<ToolExecution>) {
  return sendEmail({ params: config(), args: {}, env: insecure, signal: new AbortController().signal, tenantId: 't', ...x });
}

describe('Email executor', () => {
  it('sends plain-text content as text and as HTML with its line breaks', async () => {
    const r = await send({
      args: { to_email: 'ann@example.test', cc_email: 'bob@example.test; cy@example.test', subject: 'Plain', content: 'Line one\nLine <two>' },
    });
    expect(r).toMatchObject({ outputs: { success: true } });
    expect(r.text).toMatch(/Email sent to ann@example\.test \(cc: bob@example\.test, cy@example\.test\)/);
    const mail = smtp.mails.at(-1)!;
    expect(mail.rcptTo).toEqual(['ann@example.test', 'bob@example.test', 'cy@example.test']);
    expect(mail.headers.from).toBe('Report Bot <mailer@example.test>');
    expect(mail.text).toBe('Line one\nLine <two>');
    expect(mail.html).toBe('Line one<br>\nLine &lt;two&gt;');
  });

  it("sends HTML content as is, with a text alternative; falls back to RAGFlow's subject and content", async () => {
    await send({ args: { to_email: 'ann@example.test', content: '<p>Hello <b>there</b></p>' } });
    const mail = smtp.mails.at(-1)!;
    expect(mail.headers.subject).toBe('No Subject');
    expect(mail.html).toBe('<p>Hello <b>there</b></p>');
    expect(mail.text).toBe('Hello there');
    await send({ args: { to_email: 'ann@example.test', subject: 'Empty' } });
    expect(smtp.mails.at(-1)!.text).toBe('No content provided');
  });

  it('sends nothing and reports success false without a recipient, as RAGFlow does', async () => {
    const before = smtp.mails.length;
    expect(await send({ args: { to_email: '' } })).toMatchObject({ outputs: { success: false } });
    expect(smtp.mails.length).toBe(before);
  });

  it('logs in with smtp_username when given', async () => {
    const e = await failure(send({ params: { ...config(), smtp_username: 'someone-else' }, args: { to_email: 'ann@example.test' } }));
    expect(e.code).toBe('TOOL_AUTH');
    expect(smtp.logins.at(-1)).toMatchObject({ username: 'someone-else', ok: false });
  });

  it('reports a refused login as TOOL_AUTH with the server answer', async () => {
    const e = await failure(send({ params: { ...config(), password: 'wrong' }, args: { to_email: 'ann@example.test' } }));
    expect(e.code).toBe('TOOL_AUTH');
    expect(e.message).toMatch(/SMTP authentication failed for mailer@example\.test .*535/);
  });

  it('requires STARTTLS on a non-465 port unless SMTP_ALLOW_INSECURE is set', async () => {
    const logins = smtp.logins.length;
    const e = await failure(send({ env: allowLocal, args: { to_email: 'ann@example.test' } }));
    expect(e.code).toBe('TOOL_BAD_REQUEST');
    expect(e.message).toMatch(/STARTTLS/);
    // The password never went out over the unencrypted connection.
    expect(smtp.logins.length).toBe(logins);
  });

  it('refuses an SMTP server on a private or loopback address unless NETWORK_ALLOW_HOSTS allows it', async () => {
    const logins = smtp.logins.length;
    const e = await failure(send({ env: { SMTP_ALLOW_INSECURE: '1' }, args: { to_email: 'ann@example.test' } }));
    expect(e.code).toBe('TOOL_BAD_REQUEST');
    expect(e.message).toMatch(/NETWORK_ALLOW_HOSTS/);
    expect(smtp.logins.length).toBe(logins);
  });

  it('explains missing settings and an unreachable server', async () => {
    expect((await failure(send({ params: { ...config(), smtp_server: '' }, args: { to_email: 'a@b.c' } }))).code).toBe('TOOL_BAD_REQUEST');
    expect((await failure(send({ params: { ...config(), password: '' }, args: { to_email: 'a@b.c' } }))).code).toBe('TOOL_AUTH');
    const e = await failure(send({ params: { ...config(), smtp_port: 1 }, args: { to_email: 'a@b.c' } }));
    expect(e.code).toBe('TOOL_UNAVAILABLE');
    expect(e.message).toMatch(/127\.0\.0\.1:1/);
  });
});
