/**
 * OpenAI clients, one per endpoint and key. Their own retries are off: Temporal owns retries,
 * so a failed call is retried by the activity's retry policy, visible in the workflow history.
 * They talk through `pooledFetch` (node:http keep-alive pools), cheaper per call than the
 * platform's `fetch` on every model call (see src/io/net/pooledFetch.ts).
 */
import OpenAI from 'openai';
import { pooledFetch } from '../net';
import type { ResolvedModel } from './providers';

const clients = new Map<string, OpenAI>();

export function clientFor(target: Pick<ResolvedModel, 'baseUrl' | 'apiKey'>): OpenAI {
  const key = `${target.baseUrl}\u0000${target.apiKey}`;
  let client = clients.get(key);
  if (!client) {
    // The activity's start-to-close timeout bounds a call; the client must not cut it shorter.
    client = new OpenAI({ baseURL: target.baseUrl, apiKey: target.apiKey, maxRetries: 0, timeout: 24 * 60 * 60 * 1000, fetch: pooledFetch });
    clients.set(key, client);
  }
  return client;
}
