/** What keeping time travel's batch snapshots costs a model node (the orchestration bench's own table). */
import { table } from './common';

const ms = (x: number) => x.toFixed(1);

/** Rows: a node's time with snapshots on and off (RUN_SNAPSHOTS=off), the difference and the paired ratio. */
export function snapshotCostRows(on: number, off: number, paired: number): string[][] {
  return [
    ['per activity node, snapshots on (default), ms', ms(on)],
    ['per activity node, snapshots off (RUN_SNAPSHOTS=off), ms', ms(off)],
    ['snapshots cost per node, ms (on − off)', ms(on - off)],
    ['paired: median of per-repeat ratios on / off', `${paired.toFixed(2)}×`],
  ];
}

export function printSnapshotCost(chain: number[], repeats: number, rows: string[][]): void {
  table(`batch snapshots for time travel (chains of ${chain.join(', ')} LLM nodes, ${repeats} repeats, medians)`, ['', 'value'], rows);
}
