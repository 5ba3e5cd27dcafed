/**
 * Helpers for tests that stop agent-canvas processes (started with test/helpers/appProcess.ts)
 * by signal, the way an orchestrator or a terminal does.
 */
import type { AppProcess } from '../helpers/appProcess';

/** Resolves with how the process ended; rejects (with its output) if it is still running after `boundMs`. */
export async function exitOf(app: AppProcess, boundMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const started = Date.now();
  const { proc } = app;
  if (proc.exitCode !== null || proc.signalCode !== null) return { code: proc.exitCode, signal: proc.signalCode, ms: 0 };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not exit within ${boundMs} ms:\n${app.output().slice(-3000)}`)), boundMs);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: Date.now() - started });
    });
  });
}

/** Resolves once the process has printed `text` (its start banner, say); rejects if it exits first or after `timeoutMs`. */
export async function waitForOutput(app: AppProcess, text: string, timeoutMs = 240_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!app.output().includes(text)) {
    if (app.proc.exitCode !== null || Date.now() > until) throw new Error(`the process did not print "${text}":\n${app.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** GET /health once the server listens, whatever it answers. */
export async function health(
  base: string,
  app: AppProcess,
  timeoutMs = 240_000,
): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${base}/health`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
    } catch (err) {
      if (app.proc.exitCode !== null || Date.now() > until) throw new Error(`no answer from ${base}/health (${String(err)}):\n${app.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** Polls /health until it answers 200. */
export async function waitHealthStatus(
  base: string,
  app: AppProcess,
  want: number,
  timeoutMs = 240_000,
): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await health(base, app, timeoutMs);
    if (res.status === want || Date.now() > until) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** What a clean stop must not print. */
export const UNCLEAN_STOP = /IllegalStateError|DRAINING|\n\s+at \S+ \(/;
