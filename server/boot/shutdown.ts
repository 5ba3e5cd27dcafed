/**
 * The one way every role stops: on SIGINT/SIGTERM/SIGHUP (or the launcher going away), drain (stop taking HTTP requests, end SSE
 * streams, let the worker finish what it holds), then release what the process opened, all
 * within a time bound. A second signal exits at once. Nothing here throws to the top level: a
 * step that fails is reported in one line and the rest still run, so a stop never ends in a
 * stack trace.
 */

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown>;
}

export interface ShutdownPlan {
  /** Run in order; together they get the whole time bound (in-flight work finishes here). */
  drain: ShutdownStep[];
  /** Run in order after the drain, each given what is left of the bound (at least a second). */
  release: ShutdownStep[];
}

export interface ShutdownOptions {
  timeoutMs: number;
  say: (line: string) => void;
  exit: (code: number) => void;
  signals?: readonly NodeJS.Signals[];
}

const MIN_STEP_MS = 1000;

/** Runs `step`, resolving to null when it finished and to the reason when it failed or ran out of time. */
async function bounded(step: ShutdownStep, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`did not finish within ${Math.round(ms)} ms`), ms);
  });
  try {
    return await Promise.race([step.run().then(() => null), late]);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the plan once; resolves to the exit code (0 when every step finished in time). */
export async function runShutdown(plan: ShutdownPlan, opts: Pick<ShutdownOptions, 'timeoutMs' | 'say'>): Promise<number> {
  const deadline = Date.now() + opts.timeoutMs;
  let code = 0;
  for (const step of [...plan.drain, ...plan.release]) {
    const problem = await bounded(step, Math.max(deadline - Date.now(), MIN_STEP_MS));
    if (problem !== null) {
      code = 1;
      opts.say(`agent-canvas: stopping ${step.name}: ${problem}`);
    }
  }
  return code;
}

/** Installs the signal handlers; the returned function starts the same shutdown by hand. */
export function onStopSignals(plan: ShutdownPlan, opts: ShutdownOptions): (reason: string) => void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) {
      opts.say(`agent-canvas: ${reason} again, exiting without waiting`);
      opts.exit(1);
      return;
    }
    stopping = true;
    opts.say(`agent-canvas: ${reason}, shutting down (waiting up to ${Math.round(opts.timeoutMs / 1000)} s for work in flight; repeat to exit now)`);
    void runShutdown(plan, opts).then((code) => {
      opts.say(code === 0 ? 'agent-canvas: stopped' : 'agent-canvas: stopped, not everything closed cleanly');
      opts.exit(code);
    });
  };
  // SIGHUP too: a closed terminal or a supervisor's reload must not kill the process without its
  // drain (Node's default for SIGHUP), which would leave the dev server it started running.
  for (const signal of opts.signals ?? ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
  return stop;
}

/**
 * Stops when the launcher (scripts/run.mjs, which spawns this process with an IPC channel) is
 * gone, however it died (SIGKILL included): the channel closes with it. Without a channel (a
 * process started directly, a container's CMD) there is no launcher to watch.
 */
export function stopWhenLauncherGoes(stop: (reason: string) => void): void {
  if (typeof process.send !== 'function') return;
  // It may have gone while this process was still starting.
  if (!process.connected) return stop('the launcher is gone');
  process.once('disconnect', () => stop('the launcher is gone'));
  // The channel must not keep the process alive on its own.
  process.channel?.unref();
}
