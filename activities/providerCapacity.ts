/**
 * Waits for room under a provider limit (src/io/llm/providerLimits.ts) before a model call:
 * takes one request and the call's prompt tokens in the current clock minute's window, shared by
 * all workers through the store, or waits for the next minute, heartbeating ("waiting for provider
 * capacity") so a cancel still reaches the call and a dead worker is still noticed.
 */
import type { Context } from '@temporalio/activity';
import type { ProviderLimit } from '../src/io/llm/providerLimits';
import type { ProviderWindows } from '../src/io/store/contract';

const MINUTE_MS = 60_000;

/**
 * Resolves with the window (minute number) the call was admitted in. `onWait` is told when the
 * call first finds no room (the start of its wait, for the call's trace).
 */
export async function waitForCapacity(
  windows: ProviderWindows,
  limit: ProviderLimit,
  tokens: number,
  ctx: Context,
  onWait?: (since: number) => void,
): Promise<number> {
  for (let refused = 0; ; refused++) {
    const now = Date.now();
    const minute = Math.floor(now / MINUTE_MS);
    if (await windows.take(limit.key, minute, tokens, limit)) return minute;
    if (refused === 0) onWait?.(now);
    ctx.heartbeat({ waiting: 'provider capacity', limit: limit.key });
    // To the next window, a second at a time (heartbeats, cancellation), with a little spread so
    // that the workers waiting do not all ask at the same instant.
    const untilNext = (minute + 1) * MINUTE_MS - now + Math.floor(Math.random() * 200);
    await ctx.sleep(Math.min(1000, untilNext));
  }
}
