/**
 * What our fetches do on a redirect, in one place (the guarded fetch.ts and streamFetch.ts follow
 * redirects themselves; pooledFetch.ts hands them to the platform's fetch): which statuses
 * redirect, and the request that follows one, as browsers and the platform's fetch send it.
 */

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** A request as the fetches keep it between hops: header names in lower case. */
export interface HopRequest<B> {
  method: string;
  body: B | undefined;
  headers: Record<string, string>;
}

/**
 * The request sent to `to` after `status` answered `from`: 303 (and 301/302 after a POST)
 * continue as a GET without the body (a HEAD stays a HEAD), and credentials go to the same
 * origin only.
 */
export function followRedirect<B>(status: number, req: HopRequest<B>, from: string, to: URL): HopRequest<B> {
  let { method, body, headers } = req;
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    if (method !== 'HEAD') method = 'GET';
    body = undefined;
    const { 'content-type': _type, ...others } = headers;
    headers = others;
  }
  if (to.origin !== new URL(from).origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.includes(k)));
  return { method, body, headers };
}
