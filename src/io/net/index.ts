/**
 * The network guard for tools (SSRF protection): `guardedFetch` for HTTP, `assertHostAllowed`
 * (+ `pinnedLookup`) for other protocols such as database connections, `guardedFetchFn` for
 * libraries that take a streaming `fetch` (MCP transports). See guard.ts. Beside it, unguarded,
 * `pooledFetch`: the model clients' `fetch` over keep-alive node:http(s) pools (operator endpoints).
 */
export { parseAllowList } from './allowList';
export { guardedFetch, type GuardedFetchOptions, type GuardedRequestInit, type GuardedResponse } from './fetch';
export { guardedFetchFn, RESERVED_REQUEST_HEADERS, type FetchFn, type GuardedFetchFnOptions } from './streamFetch';
export {
  assertHostAllowed,
  assertUrlAllowed,
  canonicalHost,
  pinnedLookup,
  systemResolver,
  type GuardContext,
  type PinnedHost,
  type ResolvedAddress,
  type Resolver,
} from './guard';
export { createPooledFetch, pooledFetch, type PooledFetch, type PooledFetchOptions } from './pooledFetch';
export { blockedReason, parseIp } from './ip';
