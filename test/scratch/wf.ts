import { condition, sleep, upsertSearchAttributes, patched } from '@temporalio/workflow';
import { RUN_STATUS_KEY } from '../../src/core/searchAttributes';
export async function plainSleep(): Promise<string> { await sleep('2 days'); return 'slept'; }
export async function likeOurs(): Promise<string> {
  upsertSearchAttributes([{ key: RUN_STATUS_KEY, value: 'paused' }]);
  patched('x');
  const ok = await condition(() => false, 172800 * 1000);
  return ok ? 'arrived' : 'expired';
}
