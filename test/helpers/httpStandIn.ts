/**
 * The plumbing of a local HTTP stand-in for a third-party API: it records every request (method,
 * path, query string, form body, headers) and can answer scripted HTTP errors first, so tests
 * see exactly what the product sent and how it reacts to outages and refusals.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query string parameters. */
  query: Record<string, string>;
  /** Form fields of a urlencoded body. */
  form: Record<string, string>;
  /** A JSON body, parsed (undefined for other bodies). */
  json?: unknown;
  /** The raw body. */
  body: string;
  headers: IncomingHttpHeaders;
}

export interface Answer {
  status: number;
  body: string;
  contentType?: string;
  /** Extra response headers (Set-Cookie, Location, X-RateLimit-Remaining...). */
  headers?: Record<string, string | string[]>;
}

export type Route = (req: RecordedRequest) => Answer;

export interface StandIn {
  url: string;
  requests: RecordedRequest[];
  /**
   * The next requests whose search term (`q`, `srsearch` or the form's `q`) equals `term` get
   * these HTTP statuses, one per request, before normal answers resume.
   */
  failFor(term: string, statuses: number[]): void;
  /** Requests whose search term equals `term` are answered after `ms` milliseconds. */
  delayFor(term: string, ms: number): void;
  /** Requests carrying the search term `term`. */
  requestsFor(term: string): RecordedRequest[];
  stop(): Promise<void>;
}

/** The search term of a request, whatever the protocol calls it. */
export function searchTerm(req: RecordedRequest): string | undefined {
  const body = (req.json ?? {}) as { query?: unknown };
  return req.query.q ?? req.query.srsearch ?? req.form.q ?? (typeof body.query === 'string' ? body.query : undefined);
}

export const json = (value: unknown, status = 200): Answer => ({ status, body: JSON.stringify(value), contentType: 'application/json' });
export const html = (body: string, status = 200): Answer => ({ status, body, contentType: 'text/html; charset=utf-8' });

export interface StandInOptions {
  /** The term `failFor`, `delayFor` and `requestsFor` match (default: {@link searchTerm}). */
  term?: (req: RecordedRequest) => string | undefined;
}

export async function startStandIn(route: Route, opts: StandInOptions = {}): Promise<StandIn> {
  const termOf = opts.term ?? searchTerm;
  const scripted = new Map<string, number[]>();
  const delays = new Map<string, number>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://stand-in');
      const isForm = String(req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded');
      let parsed: unknown;
      if (String(req.headers['content-type'] ?? '').includes('json') && raw) {
        try {
          parsed = JSON.parse(raw);
        } catch {
          parsed = undefined;
        }
      }
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        form: isForm ? Object.fromEntries(new URLSearchParams(raw)) : {},
        json: parsed,
        body: raw,
        headers: req.headers,
      };
      requests.push(rec);
      const term = termOf(rec);
      const failure = term === undefined ? undefined : scripted.get(term)?.shift();
      let answer: Answer;
      try {
        answer = failure ? { status: failure, body: `scripted failure ${failure}`, contentType: 'text/plain' } : route(rec);
      } catch (err) {
        answer = { status: 500, body: `stand-in error: ${err instanceof Error ? err.message : String(err)}`, contentType: 'text/plain' };
      }
      const send = () => void res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain', ...answer.headers }).end(answer.body);
      const delay = term === undefined ? 0 : (delays.get(term) ?? 0);
      if (delay > 0) setTimeout(send, delay);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failFor: (term, statuses) => void scripted.set(term, [...statuses]),
    delayFor: (term, ms) => void delays.set(term, ms),
    requestsFor: (term) => requests.filter((r) => termOf(r) === term),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
