/**
 * How the workflow bundle is built, shared by the worker, the tests and the benchmarks.
 *
 * With reusable V8 contexts, every cached workflow evaluates the bundle's modules anew, so module
 * scope costs memory per cached run. zod and jsonrepair (libraries without per-run state) are
 * preloaded instead: evaluated once and shared. Our own modules cannot be: the SDK freezes
 * preloaded objects, and zod schemas fill in lazy properties on first use. So our schemas are
 * built on first use instead (src/core/dsl/lazySchema.ts): a run builds only the ones its canvas
 * needs.
 */
import path from 'node:path';

export const WORKFLOW_PRELOAD_MODULES: readonly string[] = ['zod', 'jsonrepair'];

export function workflowsPath(projectRoot: string): string {
  return path.join(projectRoot, 'workflows/index.ts');
}
