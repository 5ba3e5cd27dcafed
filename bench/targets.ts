/**
 * Issue 37's targets, restated against floors that do the same work as agent-canvas (the bare
 * floors stay printed in the orchestration bench's first table). A target is judged on the
 * paired figure, the median of ratios taken seconds apart, as load from other work on the
 * machine moves both sides of each pair alike.
 */

export interface TargetFigure {
  name: string;
  /** How the paired ratio must compare with `bound`: at most (a cost) or at least (a rate). */
  kind: 'at most' | 'at least';
  bound: number;
  floor: number;
  ours: number;
  /** The median of per-pair ratios (ours ÷ floor). */
  paired: number;
  /** How the figure is printed (ms or runs/s). */
  digits?: number;
}

/** Rows for `table`: target, same-work floor, agent-canvas, ratio of medians, paired, met. */
export function targetRows(figures: TargetFigure[]): string[][] {
  return figures.map((f) => {
    const met = f.kind === 'at most' ? f.paired <= f.bound : f.paired >= f.bound;
    return [
      `${f.name} (${f.kind === 'at most' ? '≤' : '≥'} ${f.bound.toFixed(2)}×)`,
      f.floor.toFixed(f.digits ?? 1),
      f.ours.toFixed(f.digits ?? 1),
      `${(f.ours / f.floor).toFixed(2)}×`,
      `${f.paired.toFixed(2)}×`,
      met ? 'met' : 'MISSED',
    ];
  });
}

export const TARGET_HEADER = ['target', 'same-work floor', 'agent-canvas', 'ratio of medians', 'paired', ''];
