/**
 * The chain measurements of the orchestration bench, kept per repeat: each repeat times every
 * side at every chain length in turn, so a figure can be read two ways. The ratio of medians
 * (each side's median time per chain length, then the slope over lengths) is the bench's figure;
 * the median of per-repeat ratios pairs ours with the floor measured seconds apart, so that a
 * floor that drifts between repeats (7–15 ms a node from one run to the next on 2 cores) moves
 * both sides of each ratio alike.
 */
import { median } from './common';
import { slope } from './floor/harness';

/** One repeat: by chain length, each side's time (ms). */
export type Repeat<K extends string> = Map<number, Record<K, number>>;

/** Repeats `f` (two warm-ups dropped) and answers each kept repeat's figures. */
export async function sampled<T>(repeats: number, f: () => Promise<T>): Promise<T[]> {
  const kept: T[] = [];
  for (let r = 0; r < repeats + 2; r++) {
    const x = await f();
    if (r >= 2) kept.push(x);
  }
  return kept;
}

/** Runs `measure` for every chain length in turn, `repeats` times after two warm-ups that are dropped. */
export function repeatChains<K extends string>(
  repeats: number,
  lengths: number[],
  measure: (n: number) => Promise<Record<K, number>>,
): Promise<Array<Repeat<K>>> {
  return sampled(repeats, async () => {
    const repeat: Repeat<K> = new Map();
    for (const n of lengths) repeat.set(n, await measure(n));
    return repeat;
  });
}

/** The median time of `side` at chain length `n`. */
export function medianAt<K extends string>(repeats: Array<Repeat<K>>, n: number, side: K): number {
  return median(repeats.map((r) => r.get(n)![side]));
}

/** Per node: the slope over chain lengths of each length's median. */
export function medianSlope<K extends string>(repeats: Array<Repeat<K>>, side: K): number {
  return slope([...repeats[0]!.keys()].map((n) => [n, medianAt(repeats, n, side)]));
}

/** The median over repeats of ours ÷ floor, each repeat's per-node slope (or, with `n`, its time at that length). */
export function pairedRatio<K extends string>(repeats: Array<Repeat<K>>, ours: K, floor: K, n?: number): number {
  const of = (r: Repeat<K>, side: K) => (n === undefined ? slope([...r].map(([len, x]) => [len, x[side]])) : r.get(n)![side]);
  return median(repeats.map((r) => of(r, ours) / of(r, floor)));
}
