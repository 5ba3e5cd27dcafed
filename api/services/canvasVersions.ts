/**
 * Canvas version resolution, an early step of every request that starts a run: the start's sizes
 * checked, and what the start derives from the DSL, once per canvas version: the compiled canvas (a new session's greeting,
 * Begin's form) and the DSL as the run's workflow gets it (slimmed, credentials redacted).
 * Compiling took a few ms of the main thread per start, which a burst of starts paid 200 times
 * over for the same canvas. Keyed by the canvas and its version id, which every DSL edit renews,
 * so an edited canvas is compiled anew; bounded, least recently used first.
 */
import { redactSecrets, slimForRun } from '../../src/core/dsl/secrets';
import type { CanvasDsl } from '../../src/core/dsl/schema';
import { compileCanvas, prepareCanvas, type PreparedCanvas } from '../../src/core/engine';
import type { CanvasRecord } from '../../src/io/store/contract';
import { checkBytes, checkRunInputSizes, checkSize, DEFAULT_RUN_INPUT_LIMITS, sizeOf, type RunInputLimits } from './runLimits';

/** Versions kept at once: the canvases a busy API serves, with room to spare. */
const MAX_VERSIONS = 256;

export type Compiled = ReturnType<typeof compileCanvas>;

/**
 * A prepared canvas repeats each component's params beside the DSL in the run's input; past this
 * size the workflow compiles the DSL itself instead, keeping the input well under Temporal's limit.
 */
const PREPARED_MAX_BYTES = 256 * 1024;

/** What a run's workflow gets to run a canvas version: the run DSL, prepared when that fits. */
export type RunCanvas = { dsl: CanvasDsl; prepared: PreparedCanvas } | { dsl: Record<string, unknown>; prepared?: undefined };

interface Derived {
  /** The DSL's size as JSON (checked against the run input limit at every start: ~1 ms for a 100 KB canvas). */
  dslBytes?: number;
  compiled?: Compiled;
  runDsl?: Record<string, unknown>;
  runCanvas?: RunCanvas;
}

const byVersion = new Map<string, Derived>();

function derivedOf(canvas: Pick<CanvasRecord, 'id' | 'version_id'>): Derived {
  const key = `${canvas.id}\u0000${canvas.version_id}`;
  let derived = byVersion.get(key);
  if (derived)
    byVersion.delete(key); // re-inserted below: the most recently used goes last
  else derived = {};
  byVersion.set(key, derived);
  if (byVersion.size > MAX_VERSIONS) byVersion.delete(byVersion.keys().next().value!);
  return derived;
}

/** The stored DSL's size in bytes, as JSON. */
export function dslBytesOf(canvas: Pick<CanvasRecord, 'id' | 'version_id' | 'dsl'>): number {
  const derived = derivedOf(canvas);
  return (derived.dslBytes ??= sizeOf(canvas.dsl));
}

/** The canvas compiled (shared: callers must not change it). */
export function compiledCanvas(canvas: Pick<CanvasRecord, 'id' | 'version_id' | 'dsl'>): Compiled {
  const derived = derivedOf(canvas);
  return (derived.compiled ??= compileCanvas(canvas.dsl));
}

/** The DSL a run's workflow starts with: slimmed, credential params redacted (shared: not to be changed). */
export function runDslOf(canvas: Pick<CanvasRecord, 'id' | 'version_id' | 'dsl'>): Record<string, unknown> {
  const derived = derivedOf(canvas);
  return (derived.runDsl ??= redactSecrets(slimForRun(canvas.dsl)) as Record<string, unknown>);
}

/**
 * The canvas as a run's workflow gets it (shared: not to be changed): the run DSL compiled here
 * once per version (src/core/engine/prepared.ts), so the workflow parses no schema; the bare run
 * DSL when it does not compile (the workflow reports why) or when prepared it would be too large.
 */
export function runCanvasOf(canvas: Pick<CanvasRecord, 'id' | 'version_id' | 'dsl'>): RunCanvas {
  const derived = derivedOf(canvas);
  if (derived.runCanvas) return derived.runCanvas;
  const dsl = runDslOf(canvas);
  const compiled = compileCanvas(dsl);
  const prepared = compiled.ok ? prepareCanvas(compiled.canvas) : null;
  derived.runCanvas = prepared && sizeOf(prepared.prepared) <= PREPARED_MAX_BYTES ? prepared : { dsl };
  return derived.runCanvas;
}

/** What a start carries besides its canvas (the webhook request of a webhook call). */
export interface StartValues {
  query: unknown;
  inputs: unknown;
  files: unknown;
  webhook?: unknown;
}

/** A canvas version as a start uses it: compiled (Begin's form, a greeting) and as its workflow runs it. */
export interface StartableCanvas {
  compiled: Compiled;
  runCanvas: RunCanvas;
}

/**
 * Refuses a start whose values or DSL are over the limits, before anything is stored (the refusal
 * names the field: query, inputs and files first, then the DSL, then a webhook request), then
 * gives the canvas version as the start uses it.
 */
export function startableCanvas(canvas: CanvasRecord, values: StartValues, limits: RunInputLimits = DEFAULT_RUN_INPUT_LIMITS): StartableCanvas {
  const dslBytes = dslBytesOf(canvas);
  checkRunInputSizes(limits, values);
  checkBytes('dsl', dslBytes, limits.dslBytes);
  if (values.webhook) checkSize('webhook', values.webhook, limits.inputsBytes);
  return { compiled: compiledCanvas(canvas), runCanvas: runCanvasOf(canvas) };
}
