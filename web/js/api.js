/**
 * Every call the page makes goes through the API with the key the user signed in with (kept in
 * sessionStorage: gone when the tab closes). Our routes answer with HTTP statuses; RAGFlow's
 * (/api/v1/agents...) with `{code, data}` on HTTP 200 — both come back here as data or an ApiError.
 */
import { readSse } from './sse.js';
const KEY = 'agent-canvas.api-key';

export const session = {
  key: () => sessionStorage.getItem(KEY),
  signIn: (key) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(typeof body?.message === 'string' ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    /** `[{path, message}]`: each bad field, as the API names it. */
    this.problems = body?.errors ?? body?.data?.errors ?? [];
  }
}

/** Raised on 401: the page goes back to the sign-in form. */
export const onUnauthorized = { handler: () => {} };

function headers(extra = {}) {
  const key = session.key();
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

export async function call(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text };
  }
  const ragflowAuth = parsed && parsed.code === 109;
  if (res.status === 401 || ragflowAuth) {
    onUnauthorized.handler();
    throw new ApiError(401, parsed);
  }
  if (!res.ok) throw new ApiError(res.status, parsed);
  // RAGFlow's envelope: a non-zero code is a failure whatever the HTTP status.
  if (path.startsWith('/api/v1/agents') && parsed && typeof parsed.code === 'number') {
    if (parsed.code !== 0) throw new ApiError(res.status, parsed);
    return parsed.data;
  }
  return parsed;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});

/** Checks a key by listing one run; resolves true when the API accepts it. */
export async function checkKey(key) {
  const res = await fetch('/api/v1/runs?page_size=1', { headers: { authorization: `Bearer ${key}` } });
  return res.ok;
}

/**
 * Follows a run's events (SSE over fetch, so the key travels in a header). After a dropped
 * connection it reconnects with Last-Event-ID and gets exactly what it missed. Resolves when the
 * stream ends with [DONE] or `signal` aborts.
 */
export async function followEvents(runId, { onEvent, onConnection, signal }) {
  let lastId = null;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const res = await fetch(`/api/v1/runs/${encodeURIComponent(runId)}/events`, {
        headers: headers(lastId ? { 'last-event-id': lastId } : {}),
        signal,
      });
      if (res.status === 401) return onUnauthorized.handler();
      if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
      onConnection?.('live');
      attempt = 0;
      let ended = false;
      await readSse(res, (text, id) => {
        if (text === '[DONE]') return (ended = true);
        if (id) lastId = id;
        onEvent(JSON.parse(text), id);
        return false;
      });
      if (ended) {
        onConnection?.('ended');
        return;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && err.status === 404) throw err;
    }
    onConnection?.('reconnecting');
    await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5000)));
  }
}
