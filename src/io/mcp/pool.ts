/**
 * Keeps MCP sessions open across calls of a worker process: a stdio server is one child process
 * for many calls, an HTTP server one initialized session. Sessions are keyed by the server's id
 * and last update (an edited server gets a fresh session), closed after a quiet minute, and
 * dropped when a call fails at the transport level so the next attempt reconnects.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerRecord } from '../store/contract';
import { connectMcp, type McpPolicy } from './connect';

interface Entry {
  client: Promise<Client>;
  idle: NodeJS.Timeout | null;
  inUse: number;
}

export class McpPool {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly policy: McpPolicy,
    private readonly idleMs = 60_000,
  ) {}

  /** Runs `fn` with a session to `server`; a throw from `fn` with `drop` set closes the session. */
  async use<T>(server: McpServerRecord, connectTimeoutMs: number, fn: (client: Client) => Promise<T>, drop: (err: unknown) => boolean): Promise<T> {
    const key = `${server.id}@${server.update_time}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { client: connectMcp(server, this.policy, connectTimeoutMs), idle: null, inUse: 0 };
      this.entries.set(key, entry);
    }
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
    entry.inUse++;
    try {
      const client = await entry.client;
      return await fn(client);
    } catch (err) {
      // A failed connect or a broken transport must not be reused.
      if (
        this.entries.get(key) === entry &&
        (drop(err) ||
          (await entry.client.then(
            () => false,
            () => true,
          )))
      )
        this.close(key, entry);
      throw err;
    } finally {
      entry.inUse--;
      if (entry.inUse === 0 && this.entries.get(key) === entry) {
        entry.idle = setTimeout(() => this.close(key, entry!), this.idleMs);
        entry.idle.unref();
      }
    }
  }

  private close(key: string, entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.client
      .then(
        (c) => c.close(),
        () => undefined,
      )
      .catch(() => undefined);
  }

  /** Closes every session (worker shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.entries.entries()];
    for (const [key, entry] of all) this.close(key, entry);
    await Promise.allSettled(all.map(([, e]) => e.client.then((c) => c.close())));
  }

  get size(): number {
    return this.entries.size;
  }
}
