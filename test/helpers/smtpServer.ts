/**
 * A local SMTP server (the `smtp-server` package) that accepts one user, captures every message
 * it is sent (envelope, headers, plain-text body) and records every login attempt. It offers no
 * STARTTLS: the product talks to it with SMTP_ALLOW_INSECURE=1, and without that knob must refuse.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  mailFrom: string;
  rcptTo: string[];
  /** Header names lower-cased, folded lines joined. */
  headers: Record<string, string>;
  /** The text/plain part, transfer-decoded. */
  text: string;
  /** The text/html part, transfer-decoded. */
  html: string;
  raw: string;
}

export interface SmtpStandIn {
  port: number;
  mails: CapturedMail[];
  logins: Array<{ username: string; password: string; ok: boolean }>;
  stop(): Promise<void>;
}

function parseHeaders(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) out[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return out;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The body of the first part of `type` in a (possibly multipart) message, with LF line ends. */
function part(raw: string, type: string): string {
  return partBody(raw, type).replace(/\r\n/g, '\n');
}

function partBody(raw: string, type: string): string {
  const sections = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  for (const section of sections) {
    const split = section.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const headers = parseHeaders(section.slice(0, split));
    if (!(headers['content-type'] ?? '').toLowerCase().startsWith(type)) continue;
    const body = section
      .slice(split)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n--[^\r\n]*--\s*$/, '');
    const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
    if (encoding === 'quoted-printable') return decodeQuotedPrintable(body).trim();
    if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8').trim();
    return body.trim();
  }
  return '';
}

export async function startSmtpServer(account: { username: string; password: string }): Promise<SmtpStandIn> {
  const mails: CapturedMail[] = [];
  const logins: SmtpStandIn['logins'] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      const ok = auth.username === account.username && auth.password === account.password;
      logins.push({ username: auth.username ?? '', password: auth.password ?? '', ok });
      if (!ok) return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.search(/\r?\n\r?\n/);
        mails.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          headers: parseHeaders(raw.slice(0, split)),
          text: part(raw, 'text/plain'),
          html: part(raw, 'text/html'),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    logins,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
