/**
 * Email (.eml) as RAGFlow's Parser reads it: the wanted header `fields` (from, to, cc, bcc, date,
 * subject), the other headers as `metadata`, the plain and HTML bodies (`text`, `text_html`) and
 * attachments (`{filename, payload}`, as text). Output `json` is one item holding all of it;
 * `text` is RAGFlow's "key:value" lines. Outlook .msg files need a reader this build does not have.
 */
import { pyJson } from '../../../core/dsl/refs';
import { AppError } from '../../../errors';

interface Part {
  headers: Map<string, string>;
  body: Uint8Array;
}

const latin1 = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);

function parsePart(raw: Uint8Array): Part {
  const text = latin1(raw);
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  const bodyStart = split ? split.index + split[0].length : text.length;
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(bodyStart) };
}

function param(header: string | undefined, name: string): string | undefined {
  const m = new RegExp(`${name}\\*?=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(header ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  let bytes = part.body;
  if (encoding === 'base64') bytes = new Uint8Array(Buffer.from(latin1(bytes).replace(/\s+/g, ''), 'base64'));
  else if (encoding === 'quoted-printable') {
    const qp = latin1(bytes)
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    bytes = new Uint8Array([...qp].map((c) => c.charCodeAt(0) & 0xff));
  }
  const charset = param(part.headers.get('content-type'), 'charset') ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** RFC 2047 encoded words in headers (`=?utf-8?B?…?=`). */
function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_, charset: string, kind: string, data: string) => {
    const bytes =
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64')
        : Buffer.from(
            data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          );
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      return bytes.toString('utf8');
    }
  });
}

function walk(part: Part, out: { text: string[]; html: string[]; attachments: Array<{ filename: string; payload: string }> }): void {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const boundary = param(type, 'boundary');
  if (/^multipart\//i.test(type) && boundary) {
    const body = latin1(part.body);
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      // The line break before a boundary belongs to the boundary (RFC 2046).
      const inner = chunk.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
      walk(parsePart(new Uint8Array([...inner].map((c) => c.charCodeAt(0) & 0xff))), out);
    }
    return;
  }
  const disposition = part.headers.get('content-disposition') ?? '';
  if (/^attachment/i.test(disposition)) {
    out.attachments.push({ filename: decodeHeader(param(disposition, 'filename') ?? param(type, 'name') ?? ''), payload: decodeBody(part) });
  } else if (/^text\/html/i.test(type)) out.html.push(decodeBody(part));
  else if (/^text\/plain/i.test(type)) out.text.push(decodeBody(part));
}

const BASIC = ['from', 'to', 'cc', 'bcc', 'date', 'subject'];

/** The email's content as RAGFlow's Parser collects it. */
export function parseEmail(name: string, bytes: Uint8Array, fields: readonly string[]): Record<string, unknown> {
  if (!/\.eml$/i.test(name))
    throw new AppError('COMPONENT_UNSUPPORTED', 'The Parser cannot read Outlook .msg files in this build; save the email as .eml', { fileType: 'email' });
  const root = parsePart(bytes);
  const content: Record<string, unknown> = { metadata: {} };
  for (const [key, value] of root.headers) {
    if (fields.includes(key)) content[key] = decodeHeader(value);
    else if (!BASIC.includes(key)) (content.metadata as Record<string, string>)[key] = decodeHeader(value);
  }
  const found = { text: [] as string[], html: [] as string[], attachments: [] as Array<{ filename: string; payload: string }> };
  walk(root, found);
  if (fields.includes('body')) {
    content.text = found.text.join('\n');
    content.text_html = found.html.join('\n');
  }
  if (fields.includes('attachments')) content.attachments = found.attachments;
  return content;
}

/** RAGFlow's text rendering of an email: "key:value" lines, attachments as "filename:payload". */
export function emailText(content: Record<string, unknown>): string {
  let out = '';
  for (const [k, v] of Object.entries(content)) {
    if (typeof v === 'string') out += `${k}:${v}\n`;
    else if (Array.isArray(v))
      for (const a of v)
        out += typeof a === 'object' && a !== null ? `${(a as { filename: string }).filename}:${(a as { payload: string }).payload}\n` : String(a);
    else if (typeof v === 'object' && v !== null) out += `${k}:${pyJson(v)}\n`;
  }
  return out;
}
