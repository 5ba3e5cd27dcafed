/** What a run's details and the runs list show of time travel: where a fork, rerun or replay came from, what it saved, a replay's diff. */
import type { Store } from '../../src/io/store/contract';
import { replayDiff } from './travelReplay';

/** A run's `forked_from`, `reused_from`, `savings` (and a replay's `replay_of` and, once it ended, `diff`); nothing for a run that came from no other. */
export async function travelView(store: Store, run: { id: string; status: string }): Promise<Record<string, unknown>> {
  const t = (await store.travel.getMany([run.id])).get(run.id);
  if (!t) return {};
  if (t.kind === 'replay') {
    const ended = run.status === 'finished' || run.status === 'failed' || run.status === 'canceled';
    return { replay_of: t.source_run_id, savings: t.savings, ...(ended ? { diff: await replayDiff(store, t.source_run_id, run.id) } : {}) };
  }
  return {
    forked_from: { task_id: t.source_run_id, component_id: t.from_component, kind: t.kind, ...(typeof t.from_item === 'number' ? { item: t.from_item } : {}) },
    reused_from: { task_id: t.source_run_id, components: t.reused },
    savings: t.savings,
  };
}
