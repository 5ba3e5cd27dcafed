/**
 * One long-lived PostgreSQL connection for LISTEN, shared by every channel of a Db: a pooled
 * connection cannot be used, since notifications only reach the session that listens.
 * When the connection breaks it reconnects with backoff and listens again on every channel;
 * notifications sent while it was down are lost, so subscribers must not rely on them alone.
 */
import pg from 'pg';
import { toStoreError } from './dbErrors';

type Callback = (payload: string) => void;

const MAX_BACKOFF_MS = 5_000;

export class PgListener {
  private readonly channels = new Map<string, Set<Callback>>();
  /** The first LISTEN of each channel, for subscribers arriving while it is in flight. */
  private readonly listening = new Map<string, Promise<void>>();
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private backoffMs = 100;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly log: (msg: string) => void,
  ) {}

  /** Starts delivering `channel` notifications to `callback`; resolves once LISTEN is active. */
  async listen(channel: string, callback: Callback): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('listener is closed');
    let callbacks = this.channels.get(channel);
    if (!callbacks) {
      callbacks = new Set();
      this.channels.set(channel, callbacks);
    }
    // A wrapper makes each subscription distinct even when the same function subscribes twice.
    const entry: Callback = (payload) => callback(payload);
    callbacks.add(entry);
    // Subscribers arriving while the channel's LISTEN is in flight wait for that same LISTEN.
    let active = this.listening.get(channel);
    if (!active) {
      const started: Promise<void> = this.connected()
        .then(async (client) => {
          await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
        })
        .catch((err: unknown) => {
          if (this.listening.get(channel) === started) this.listening.delete(channel); // the next subscriber retries
          throw err;
        });
      this.listening.set(channel, started);
      active = started;
    }
    try {
      await active;
    } catch (err) {
      this.remove(channel, entry);
      throw toStoreError(err);
    }
    return async () => {
      const emptied = this.remove(channel, entry);
      if (emptied && this.client) {
        await this.client.query(`UNLISTEN ${this.client.escapeIdentifier(channel)}`).catch(() => {
          // The connection is gone: nothing is listened to anymore anyway.
        });
      }
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.channels.clear();
    this.listening.clear();
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.client = null;
    if (client) await client.end().catch(() => {});
  }

  private remove(channel: string, entry: Callback): boolean {
    const callbacks = this.channels.get(channel);
    if (!callbacks) return false;
    callbacks.delete(entry);
    if (callbacks.size > 0) return false;
    this.channels.delete(channel);
    this.listening.delete(channel);
    return true;
  }

  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('notification', (msg) => this.dispatch(msg.channel, msg.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      throw new Error('listener is closed');
    }
    this.client = client;
    this.backoffMs = 100;
    return client;
  }

  private dispatch(channel: string, payload: string): void {
    for (const callback of this.channels.get(channel) ?? []) {
      try {
        callback(payload);
      } catch (err) {
        this.log(`notification handler for ${channel} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    if (this.closed) return;
    this.log(`LISTEN connection lost (${err.message}); reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.channels.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connected().catch((err: unknown) => {
        this.log(`LISTEN reconnect failed: ${err instanceof Error ? err.message : String(err)}`);
        this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
        this.scheduleReconnect();
      });
    }, this.backoffMs);
    // Reconnecting must not keep a process alive that has nothing else to do.
    this.reconnectTimer.unref();
  }
}
