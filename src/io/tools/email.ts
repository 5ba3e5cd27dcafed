/**
 * Email over SMTP (nodemailer), as RAGFlow's Email tool sends it: port 465 is SMTP over TLS,
 * any other port must upgrade with STARTTLS before logging in (so a password never crosses the
 * network in clear). SMTP_ALLOW_INSECURE=1 lifts that requirement, for a local relay or a test
 * server without TLS. The login is `smtp_username`, else the sender address. The server is the
 * tenant's choice, so it passes the network guard and the connection goes to the checked address.
 */
import { convert } from 'html-to-text';
import nodemailer from 'nodemailer';
import { SECRET_MARKER } from '../../core/dsl/secrets';
import { AppError } from '../../errors';
import { assertHostAllowed, parseIp } from '../net';
import type { ToolExecutor } from './executor';

function text(v: unknown): string {
  return v === null || v === undefined ? '' : typeof v === 'string' ? v.trim() : String(v).trim();
}

/** RAGFlow splits CC on commas; semicolons (Outlook's separator) are accepted too. */
function addressList(v: string): string[] {
  return v
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// Tags that mark content as HTML; `<name>` placeholders in plain text are not markup.
const HTML_TAG =
  /<\/?(?:html|body|p|br|div|span|b|i|u|s|em|strong|small|a|img|ul|ol|li|h[1-6]|table|thead|tbody|tr|td|th|pre|code|blockquote|hr|font|center|sup|sub)\b[^>]*>/i;

/** RAGFlow sends the content as HTML; plain text keeps its line breaks, and both forms go out. */
function bodies(content: string): { html: string; text: string } {
  if (HTML_TAG.test(content)) return { html: content, text: convert(content, { wordwrap: false }) };
  return { html: escapeHtml(content).replace(/\r?\n/g, '<br>\n'), text: content };
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** nodemailer's error codes onto ours: refused logins and permanent (5xx) refusals are not retried. */
function smtpError(err: unknown, host: string, port: number, user: string): AppError {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as SmtpFailure;
  const detail = (e.response || e.message || 'unknown error').trim();
  switch (e.code) {
    case 'EAUTH':
    case 'ENOAUTH':
      return new AppError(
        'TOOL_AUTH',
        `SMTP authentication failed for ${user} at ${host}:${port}: ${detail}. Check the SMTP username (email) and the password (authorization code).`,
      );
    case 'ETLS':
      return new AppError(
        'TOOL_BAD_REQUEST',
        `Could not secure the SMTP connection to ${host}:${port} (${detail}). Port 465 uses SSL/TLS, other ports need STARTTLS; SMTP_ALLOW_INSECURE=1 allows a server without TLS.`,
      );
    case 'EENVELOPE':
    case 'EMESSAGE':
    case 'EPROTOCOL': {
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      return new AppError(permanent ? 'TOOL_BAD_REQUEST' : 'TOOL_UNAVAILABLE', `The SMTP server ${host}:${port} refused the email: ${detail}`, {
        responseCode: e.responseCode,
      });
    }
    default:
      return new AppError('TOOL_UNAVAILABLE', `Failed to send email through ${host}:${port}: ${detail}`);
  }
}

export const sendEmail: ToolExecutor = async ({ params, args, env, signal }) => {
  const to = text(args.to_email);
  // RAGFlow's answer to a missing recipient: nothing sent, success false, no error.
  if (!to) return { text: 'No email was sent: the recipient (to_email) is empty.', outputs: { success: false } };
  const host = text(params.smtp_server);
  const sender = text(params.email);
  const password = typeof params.password === 'string' && params.password !== SECRET_MARKER ? params.password : '';
  if (!host || !sender) throw new AppError('TOOL_BAD_REQUEST', 'Email needs an SMTP server (smtp_server) and a sender address (email) on the component');
  if (!password) throw new AppError('TOOL_AUTH', 'Email needs the SMTP password (authorization code) on the component');
  const port = Number(text(params.smtp_port) || 465);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new AppError('TOOL_BAD_REQUEST', `smtp_port must be a port number, got "${text(params.smtp_port)}"`);
  const user = text(params.smtp_username) || sender;
  const insecure = ['1', 'true'].includes(text(env.SMTP_ALLOW_INSECURE).toLowerCase());

  const cc = addressList(text(args.cc_email));
  const subject = text(args.subject) || 'No Subject';
  const content = typeof args.content === 'string' && args.content.trim() ? args.content : 'No content provided';
  const name = text(params.sender_name);

  const pinned = await assertHostAllowed(host, port, { env, service: 'Email' });
  const transport = nodemailer.createTransport({
    host: pinned.addresses[0]!.address,
    port,
    // TLS still verifies the certificate against the server's name, not the address dialled.
    ...(parseIp(pinned.host) ? {} : { tls: { servername: pinned.host } }),
    secure: port === 465,
    requireTLS: port !== 465 && !insecure,
    auth: { user, pass: password },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  // nodemailer takes no AbortSignal: closing the transport ends the conversation in flight.
  const abort = () => transport.close();
  signal.addEventListener('abort', abort, { once: true });
  try {
    const recipients = addressList(to);
    const info = await transport.sendMail({
      from: name ? { name, address: sender } : sender,
      to: recipients,
      ...(cc.length ? { cc } : {}),
      subject,
      ...bodies(content),
    });
    // The server may accept some recipients and refuse others; the model should know which.
    const rejected = (info.rejected ?? []).map(String);
    const summary = `Email sent to ${recipients.join(', ')}${cc.length ? ` (cc: ${cc.join(', ')})` : ''} with subject "${subject}".${rejected.length ? ` The server refused: ${rejected.join(', ')}.` : ''}`;
    return { text: summary, outputs: { success: true } };
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    throw smtpError(err, host, port, user);
  } finally {
    signal.removeEventListener('abort', abort);
    transport.close();
  }
};
