/**
 * The peers benchmark's figures, from what each child reported: one row per measure, one column
 * per peer, each figure with its ratio to agent-canvas. Printed as a markdown table that can be
 * pasted into docs/BENCHMARKS.md.
 */
import { median } from '../common';

export interface ChainResult {
  raw: number[];
  one: number[];
  five: Array<{ runId: string; startedAt: number; ms: number }>;
  runsPerSecond: number;
}
export interface MapResult {
  wallMs: Record<number, number | string>;
}
export interface PauseResult {
  rssBeforeMiB: number;
  rssAfterMiB: number;
  pauseMs: number;
  resumeMs: number;
}
export interface CrashResult {
  finished: boolean;
  /** Model calls of the run beyond the chain's own. */
  repeated: number;
  /** Restart (a new process spawned) → the run finished. */
  recoveryMs: number;
  /** Of which the new process's start (loading the peer, opening its database, a worker polling). */
  openMs: number;
}

/** A figure, or why there is none ("cannot: …", "failed: …"). */
export type Cell = number | string;

export interface Row {
  label: string;
  /** Digits printed. */
  digits: number;
  /** Whether a larger figure is the better one (said in the ratio's sense). */
  higherIsBetter?: boolean;
  cells: Cell[];
}

/** Each figure of a chain result: per-node overhead, fixed cost, start → first model call, runs/s. */
export function chainFigures(r: ChainResult, firstCallAt: (runId: string) => number | undefined) {
  const raw = median(r.raw);
  // Paired: each repeat's 5-node run less its 1-node run, over the 4 further nodes, less a bare call.
  const perNode = median(r.five.map((f, i) => (f.ms - r.one[i]!) / 4)) - raw;
  const firstCall = r.five.map((f) => (firstCallAt(f.runId) ?? NaN) - f.startedAt).filter((x) => !Number.isNaN(x));
  return {
    perNode,
    fixed: median(r.one) - raw,
    firstCall: firstCall.length > 0 ? median(firstCall) : 'no first call seen',
    runsPerSecond: r.runsPerSecond,
    raw,
  };
}

function show(cell: Cell, digits: number, reference: Cell): string {
  if (typeof cell === 'string') return cell;
  const figure = cell.toFixed(digits);
  if (typeof reference !== 'number' || reference === 0) return figure;
  return `${figure} (${(cell / reference).toFixed(2)}×)`;
}

/** The markdown table: ratios are each figure ÷ the reference column's (column 0). */
export function markdownTable(peers: string[], rows: Row[]): string {
  const lines = [`| measure | ${peers.join(' | ')} |`, `|---|${peers.map(() => '---:').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.label} | ${row.cells.map((c) => show(c, row.digits, row.cells[0]!)).join(' | ')} |`);
  return lines.join('\n');
}
