/**
 * The canvas a completion names, read once for a burst of completions on one agent (see
 * singleFlight.ts): the first step of a chat turn.
 */
import type { CanvasRecord, Store } from '../../src/io/store/contract';
import { SingleFlight } from './singleFlight';

const readsByStore = new WeakMap<Store, SingleFlight<CanvasRecord | null>>();

/** The tenant's canvas of that id, or null. */
export function readCanvas(store: Store, tenantId: string, agentId: string): Promise<CanvasRecord | null> {
  let reads = readsByStore.get(store);
  if (!reads) readsByStore.set(store, (reads = new SingleFlight()));
  return reads.get(`${tenantId}\u0000${agentId}`, () => store.canvases.get(tenantId, agentId));
}
