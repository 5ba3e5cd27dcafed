/**
 * Runs crash-point cases: starts the topology, runs each chosen reference once uninterrupted (its
 * answer, its calls, the points its worker passed), then each chosen point under each chosen stop
 * kind, and judges every case against the uninterrupted run.
 */
import { judge, judgeBaseline } from './checks';
import { createAgent, createPipelineDataset } from './client';
import { DEFAULT_STOPS, MATRIX } from './matrix';
import { judgePipeline, judgePipelineBaseline, runPipelineCase, type PipelineOutcome } from './pipelineCase';
import { REFERENCES, scriptReferences, type Pacer, type Reference } from './references';
import { runCase, STOP_KINDS, type Outcome, type StopKind } from './runCase';
import { startTopology, type Topology } from './topology';

export interface CaseRow {
  /** `<reference>:<point>` */
  id: string;
  stop: StopKind;
  problems: string[];
  ms: number;
}

export interface CrashpointReport {
  rows: CaseRow[];
  /** Per reference: the points its uninterrupted run passed, and what was wrong with that run. */
  baselines: Record<string, { traced: string[]; problems: string[] }>;
}

export interface Selection {
  /** Exact point ids (`llm-chain:llmChat#2:mid-stream`); empty: every point of the matrix. */
  points: string[];
  /** The stop kinds to take each point under; null: the matrix's for that point. */
  stops: StopKind[] | null;
  /** Exact (point id, stop) pairs instead (the npm test subset). */
  cases?: Array<{ id: string; stop: StopKind }>;
}

/** The cases a selection names, grouped by reference; throws on an id the matrix does not know. */
export function selectCases(sel: Selection): Map<string, Array<{ point: string; stop: StopKind }>> {
  const chosen = new Map<string, Array<{ point: string; stop: StopKind }>>();
  const known = Object.entries(MATRIX).flatMap(([ref, points]) => points.map((p) => ({ ref, ...p })));
  for (const id of [...sel.points, ...(sel.cases ?? []).map((c) => c.id)]) {
    const [ref, ...rest] = id.split(':');
    if (!REFERENCES.some((r) => r.name === ref) || rest.length === 0)
      throw new Error(`unknown point ${id}: a point id is <reference>:<point>, references ${REFERENCES.map((r) => r.name).join(', ')}`);
  }
  for (const ref of REFERENCES) {
    const wanted =
      sel.points.length > 0
        ? sel.points
            .filter((id) => id.startsWith(`${ref.name}:`))
            .map((id) => ({ point: id.slice(ref.name.length + 1), stops: known.find((k) => `${k.ref}:${k.point}` === id)?.stops }))
        : known.filter((k) => k.ref === ref.name);
    const cases = sel.cases
      ? sel.cases.filter((c) => c.id.startsWith(`${ref.name}:`)).map((c) => ({ point: c.id.slice(ref.name.length + 1), stop: c.stop }))
      : wanted.flatMap((w) => (sel.stops ?? w.stops ?? DEFAULT_STOPS).map((stop) => ({ point: w.point, stop })));
    if (cases.length > 0) chosen.set(ref.name, cases);
  }
  return chosen;
}

export async function runCrashpoints(opts: {
  selection: Selection;
  /** Also run these references uninterrupted only, to list their points. */
  traceOnly?: string[];
  temporalAddress?: string;
  say: (line: string) => void;
}): Promise<CrashpointReport> {
  const cases = selectCases(opts.selection);
  const refs = REFERENCES.filter((r) => cases.has(r.name) || opts.traceOnly?.includes(r.name));
  const t = await startTopology({ temporalAddress: opts.temporalAddress, say: opts.say });
  const pacer: Pacer = { from: 0, nth: 0 };
  scriptReferences(t.llm, pacer);
  const report: CrashpointReport = { rows: [], baselines: {} };
  try {
    const stamp = Date.now().toString(36);
    for (const ref of refs) {
      if (ref.apiEnv) await t.restartWith(t.api, ref.apiEnv);
      try {
        const driver = ref.document ? await pipelineDriver(t, ref, stamp) : await runDriver(t, pacer, ref, stamp);
        opts.say(`${ref.name}: uninterrupted run…`);
        const baseline = await driver.baseline(`${ref.name}-baseline-${stamp}`);
        report.baselines[ref.name] = baseline;
        if (baseline.problems.length > 0) {
          opts.say(`  ${ref.name}: the uninterrupted run is wrong, its points are skipped: ${baseline.problems.join('; ')}`);
          continue;
        }
        for (const [i, c] of (cases.get(ref.name) ?? []).entries()) {
          const id = `${ref.name}:${c.point}`;
          const started = Date.now();
          let problems: string[];
          try {
            problems = await driver.problems(`${ref.name}-${i}-${c.stop}-${stamp}`, c.point, c.stop);
          } catch (err) {
            problems = [`the case could not run: ${err instanceof Error ? err.message : String(err)}`.slice(0, 400)];
            // Leave the next case a topology that is up.
            await t.start(t.worker).catch(() => undefined);
            await t.start(t.api).catch(() => undefined);
          }
          const row = { id, stop: c.stop, problems, ms: Date.now() - started };
          report.rows.push(row);
          opts.say(
            `  ${problems.length === 0 ? 'ok  ' : 'FAIL'} ${id} --stop ${c.stop} (${(row.ms / 1000).toFixed(1)} s)${problems.length ? `: ${problems.join('; ')}` : ''}`,
          );
        }
      } finally {
        if (ref.apiEnv) await t.restartWith(t.api, {});
      }
    }
  } finally {
    await t.stop();
  }
  return report;
}

/** How a kind of reference is run uninterrupted, then judged at a point. */
interface ReferenceDriver {
  baseline(caseId: string): Promise<{ traced: string[]; problems: string[] }>;
  problems(caseId: string, point: string, stop: StopKind): Promise<string[]>;
}

/** A canvas run, started through the API and followed over SSE. */
async function runDriver(t: Topology, pacer: Pacer, ref: Reference, stamp: string): Promise<ReferenceDriver> {
  const agentId = await createAgent(t, `crashpoints ${ref.name} ${stamp}`, ref.canvas, Date.now() + 120_000);
  let baseline: Outcome | null = null;
  return {
    async baseline(caseId) {
      baseline = await runCase(t, pacer, { caseId, reference: ref, agentId, point: null, stop: 'sigkill' });
      return { traced: baseline.traced, problems: judgeBaseline(baseline) };
    },
    async problems(caseId, point, stop) {
      return judge(await runCase(t, pacer, { caseId, reference: ref, agentId, point, stop }), baseline!, point);
    },
  };
}

/** A document parsed by an ingestion pipeline canvas. */
async function pipelineDriver(t: Topology, ref: Reference, stamp: string): Promise<ReferenceDriver> {
  const deadline = Date.now() + 120_000;
  const pipelineId = await createAgent(t, `crashpoints ${ref.name} ${stamp}`, ref.canvas, deadline, 'dataflow_canvas');
  const datasetId = await createPipelineDataset(t, `crashpoints ${ref.name} ${stamp}`, pipelineId, deadline);
  const document = ref.document!;
  let baseline: PipelineOutcome | null = null;
  return {
    async baseline(caseId) {
      baseline = await runPipelineCase(t, { caseId, datasetId, document, point: null, stop: 'sigkill' });
      return { traced: baseline.traced, problems: judgePipelineBaseline(baseline) };
    },
    async problems(caseId, point, stop) {
      return judgePipeline(await runPipelineCase(t, { caseId, datasetId, document, point, stop }), baseline!);
    },
  };
}

/** The matrix as text: one line per point, one column per stop kind, then each failure with its command. */
export function matrixTable(report: CrashpointReport): string {
  const ids = [...new Set(report.rows.map((r) => r.id))];
  const width = Math.max(10, ...ids.map((id) => id.length));
  const lines = [`  ${'point'.padEnd(width)}  ${STOP_KINDS.map((s) => s.padEnd(9)).join(' ')}`];
  for (const id of ids) {
    const cells = STOP_KINDS.map((s) => {
      const row = report.rows.find((r) => r.id === id && r.stop === s);
      return (row ? (row.problems.length === 0 ? 'ok' : 'FAIL') : '-').padEnd(9);
    });
    lines.push(`  ${id.padEnd(width)}  ${cells.join(' ')}`);
  }
  const failures = report.rows.filter((r) => r.problems.length > 0);
  if (failures.length > 0) {
    lines.push('', 'failures (each reproducible with its command):');
    for (const f of failures) lines.push(`  npm run crashpoints -- --point ${f.id} --stop ${f.stop}`, ...f.problems.map((p) => `      ${p}`));
  }
  return lines.join('\n');
}
