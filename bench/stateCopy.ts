/**
 * State copy benchmark (`npm run bench -- state`): the engine copies a run's state at every step
 * (src/core/engine/run.ts), so the copy's cost grows with what the run holds: every node's
 * outputs, the conversation. It copies the real states of LLM chains (each node's answer of 2 to
 * 20,000 characters) by a JSON round trip, as the engine did, and by `copyJson`
 * (src/core/dsl/jsonCopy.ts), which shares strings instead of re-reading them; both give the same
 * value (checked here). Medians over rounds that alternate the two; microseconds per step.
 */
import { copyJson } from '../src/core/dsl/jsonCopy';
import { compileCanvas, resumeRun, startRun } from '../src/core/engine';
import type { RunState } from '../src/core/engine/state';
import { chainCanvas, median, runBench, table } from './common';

const ROUNDS = Number(process.env.BENCH_STATE_ROUNDS ?? 9);
const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Every state a run of an `n`-node LLM chain passes through, each model answer `chars` long. */
function statesOf(n: number, chars: number): RunState[] {
  const compiled = compileCanvas(chainCanvas('activity', n));
  if (!compiled.ok) throw new Error('bench canvas invalid');
  const answer = {
    content: 'x'.repeat(chars),
    reasoning: '',
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    model: 'm',
    finishReason: 'stop',
    toolCalls: [],
  };
  const states: RunState[] = [];
  let step = startRun(compiled.canvas, { runId: 'r', messageId: 'm', query: 'q' }, 0);
  while (step.calls.length > 0) {
    states.push(step.state);
    step = resumeRun(
      compiled.canvas,
      step.state,
      step.calls.map((c) => ({ callId: c.callId, ok: true as const, value: answer })),
      0,
    );
  }
  return [...states, step.state];
}

/** Microseconds per copy of each state, `repeat` times over. */
function timeCopies(states: RunState[], copy: (v: unknown) => unknown, repeat: number): number {
  const t = performance.now();
  for (let r = 0; r < repeat; r++) for (const s of states) copy(s);
  return ((performance.now() - t) * 1000) / (repeat * states.length);
}

function main(): Promise<void> {
  const rows: string[][] = [];
  for (const [n, chars] of [
    [11, 2],
    [11, 2000],
    [11, 20_000],
    [50, 2],
    [50, 2000],
    [50, 20_000],
  ] as const) {
    const states = statesOf(n, chars);
    const last = states[states.length - 1]!;
    if (JSON.stringify(copyJson(last)) !== JSON.stringify(roundTrip(last))) throw new Error('copyJson differs from a JSON round trip');
    const repeat = Math.max(2, Math.round(20_000 / (n * Math.max(1, chars / 200))));
    const times = { json: [] as number[], copy: [] as number[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const json = timeCopies(states, roundTrip, repeat);
      const copy = timeCopies(states, copyJson, repeat);
      if (round === 0) continue; // warm-up
      times.json.push(json);
      times.copy.push(copy);
    }
    const [json, copy] = [median(times.json), median(times.copy)];
    const bytes = JSON.stringify(last).length;
    rows.push([`${n} nodes, answers of ${chars} chars`, `${(bytes / 1024).toFixed(0)} KiB`, json.toFixed(1), copy.toFixed(1), `${(json / copy).toFixed(1)}×`]);
  }
  table('copying the run state once per step, µs per step (mean over the run)', ['chain', 'last state', 'JSON round trip', 'copyJson', 'faster'], rows);
  return Promise.resolve();
}

runBench(main);
