import type { TestContext } from 'vitest';

/**
 * Skips the running test and prints why. vitest keeps a skip's note for its verbose listing only,
 * so a run that skips for want of a service (no Temporal CLI, no MySQL) says so in its output.
 */
export function skipBecause(ctx: Pick<TestContext, 'skip' | 'task'>, reason: string): never {
  console.warn(`[skipped] ${ctx.task.name}: ${reason}`);
  return ctx.skip(reason);
}
