/**
 * The run changes feed (migration 18): what `GET /api/v1/runs/stream` sends. Rows are written by
 * the trigger on `runs`, never here; this reads them in number order and wakes a tenant's readers
 * on the one LISTEN of the Db (the NOTIFY payload is the tenant id), so a run started or ended
 * through any API process or worker reaches every process's streams.
 */
import type { Db } from './dbContract';
import { RUN_CHANGES_CHANNEL } from './runChangesMigration';

/** One run start or status change, as the feed numbers it. */
export interface RunChange {
  id: number;
  run_id: string;
  kind: 'started' | 'status' | 'ended';
  status: string;
  canvas_id: string;
  session_id: string | null;
  /** The run row's update_time (ms) when it changed. */
  at: number;
}

export interface RunChangesFeed {
  /** The tenant's changes numbered above `afterId`, in order, at most `limit`. */
  after(tenantId: string, afterId: number, limit: number): Promise<RunChange[]>;
  /** The tenant's newest change number (0 when none): where a stream with no Last-Event-ID starts. */
  latest(tenantId: string): Promise<number>;
  /** Calls `onChange` whenever the tenant has a new change; resolves once listening (and with how to stop). */
  subscribe(tenantId: string, onChange: () => void): Promise<() => void>;
}

class TenantWakeups {
  private readonly subscribers = new Map<string, Set<() => void>>();
  private started: Promise<unknown> | null = null;

  constructor(private readonly db: Db) {}

  async subscribe(tenantId: string, onChange: () => void): Promise<() => void> {
    const entry = () => onChange();
    const set = this.subscribers.get(tenantId) ?? new Set();
    this.subscribers.set(tenantId, set);
    set.add(entry);
    const remove = () => {
      set.delete(entry);
      if (set.size === 0 && this.subscribers.get(tenantId) === set) this.subscribers.delete(tenantId);
    };
    try {
      this.started ??= this.db
        .listen(RUN_CHANGES_CHANNEL, (tenant) => this.wake(tenant))
        .catch((err: unknown) => {
          this.started = null; // the next subscriber tries again
          throw err;
        });
      await this.started;
    } catch (err) {
      remove();
      throw err;
    }
    return remove;
  }

  private wake(tenantId: string): void {
    for (const onChange of [...(this.subscribers.get(tenantId) ?? [])]) {
      try {
        onChange();
      } catch {
        // One reader's failure must not keep the others asleep.
      }
    }
  }
}

const wakeups = new WeakMap<Db, TenantWakeups>();

export function runChangesRepository(db: Db): RunChangesFeed {
  let tenantWakeups = wakeups.get(db);
  if (!tenantWakeups) {
    tenantWakeups = new TenantWakeups(db);
    wakeups.set(db, tenantWakeups);
  }
  const shared = tenantWakeups;
  return {
    async after(tenantId, afterId, limit) {
      const result = await db.query<RunChange & { id: string | number }>(
        `SELECT id, run_id, kind, status, canvas_id, session_id, at FROM run_changes
         WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
        [tenantId, afterId, limit],
      );
      // bigserial comes back as a string from pg.
      return result.rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
    async latest(tenantId) {
      const result = await db.query<{ id: string | number | null }>('SELECT max(id) AS id FROM run_changes WHERE tenant_id = $1', [tenantId]);
      return Number(result.rows[0]?.id ?? 0);
    },
    subscribe: (tenantId, onChange) => shared.subscribe(tenantId, onChange),
  };
}
