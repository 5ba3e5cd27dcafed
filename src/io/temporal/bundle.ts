/**
 * How the workflow bundle is built, shared by the worker, the tests and the benchmarks.
 *
 * With reusable V8 contexts, every cached workflow evaluates the bundle's modules anew, so module
 * scope costs memory and CPU per run. zod and jsonrepair (libraries without per-run state) are
 * preloaded instead (workflows/preload.ts): evaluated once per workflow thread and shared. Our own
 * modules are not: the SDK freezes preloaded objects, and our schemas fill in lazily on first use. So our schemas are
 * built on first use instead (src/core/dsl/lazySchema.ts): a run builds only the ones its canvas
 * needs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundle's preloaded modules: workflows/preload.ts, which imports zod and jsonrepair (it says why they are not named here). */
export const WORKFLOW_PRELOAD_MODULES: readonly string[] = [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../workflows/preload.ts')];

export function workflowsPath(projectRoot: string): string {
  return path.join(projectRoot, 'workflows/index.ts');
}
