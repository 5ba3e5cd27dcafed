import { describe, expect, it } from 'vitest';
import { followRedirect, REDIRECT_STATUSES } from './redirects';

const post = { method: 'POST', body: '{"q":1}', headers: { 'content-type': 'application/json', authorization: 'Bearer k', cookie: 'c=1', 'x-trace': 't' } };
const from = 'https://api.example.com/v1/search';

describe('following a redirect', () => {
  it('knows the statuses that redirect, and no others', () => {
    expect([...REDIRECT_STATUSES].sort()).toEqual([301, 302, 303, 307, 308]);
    expect(REDIRECT_STATUSES.has(304)).toBe(false);
  });

  it('continues a POST answered by 303, 301 or 302 as a GET without its body or content type', () => {
    for (const status of [301, 302, 303]) {
      const next = followRedirect(status, post, from, new URL('https://api.example.com/v1/results'));
      expect(next).toEqual({ method: 'GET', body: undefined, headers: { authorization: 'Bearer k', cookie: 'c=1', 'x-trace': 't' } });
    }
  });

  it('repeats the request as it was after 307 and 308', () => {
    for (const status of [307, 308]) expect(followRedirect(status, post, from, new URL('https://api.example.com/v2/search'))).toEqual(post);
  });

  it('keeps a HEAD a HEAD after 303', () => {
    expect(followRedirect(303, { method: 'HEAD', body: undefined, headers: {} }, from, new URL('https://api.example.com/x')).method).toBe('HEAD');
  });

  it('sends no credentials to another origin, a different port included', () => {
    const withProxyAuth = { ...post, headers: { ...post.headers, 'proxy-authorization': 'Basic p' } };
    for (const to of ['https://other.example.com/v1/search', 'https://api.example.com:8443/v1/search', 'http://api.example.com/v1/search']) {
      expect(followRedirect(307, withProxyAuth, from, new URL(to)).headers).toEqual({ 'content-type': 'application/json', 'x-trace': 't' });
    }
  });
});
