/**
 * How the workflow bundle is built, shared by the worker, the tests and the benchmarks.
 *
 * With reusable V8 contexts, every cached workflow evaluates the bundle's modules anew, so module
 * scope costs memory and CPU per run. zod and jsonrepair (libraries without per-run state) are
 * preloaded instead (workflows/preload.ts): evaluated once per workflow thread and shared. Our own
 * modules are not: the SDK freezes preloaded objects, and our schemas fill in lazily on first use. So our schemas are
 * built on first use instead (src/core/dsl/lazySchema.ts): a run builds only the ones its canvas
 * needs.
 *
 * The bundler's development mode leaves each of our ~300 modules a function of its own, entered
 * through webpack's require and its export getters on every run; module concatenation (scope
 * hoisting) joins the modules only the workflows import into a few, as production builds do.
 * Measured (bench/orchestration.ts's throughput, Begin → LLM → Message): ~2 ms less CPU per run.
 * What the preload imports stays a module of its own, shared, as before.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleOptions } from '@temporalio/worker';

const workflowsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../workflows');

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

export interface WorkflowBundleSettings {
  /** Workflow stack traces (the stack-trace query, frames of errors raised by workflow code); off by default, workflows/preloadWithoutStacks.ts says why. */
  stackTraces: boolean;
}

/**
 * The bundler options a workflow bundle of this project is built with (the worker's
 * `bundlerOptions`, `bundleWorkflowCode`). The preloaded module is workflows/preload.ts, which
 * imports zod and jsonrepair (it says why they are not named here), or, with stack traces off,
 * workflows/preloadWithoutStacks.ts, which adds that.
 */
export function workflowBundlerOptions(settings: WorkflowBundleSettings) {
  return {
    preloadModules: [path.join(workflowsDir, settings.stackTraces ? 'preload.ts' : 'preloadWithoutStacks.ts')],
    webpackConfigHook: (config: WebpackConfig): WebpackConfig => ({ ...config, optimization: { ...config.optimization, concatenateModules: true } }),
  } satisfies Partial<BundleOptions>;
}

/** The options of the bundle a worker runs by default (stack traces off): the tests, the replay gate and the benchmarks use it. */
export const WORKFLOW_BUNDLER_OPTIONS = workflowBundlerOptions({ stackTraces: false });

export function workflowsPath(projectRoot: string): string {
  return path.join(projectRoot, 'workflows/index.ts');
}
