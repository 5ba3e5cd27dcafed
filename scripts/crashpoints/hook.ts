/**
 * The crash-point hook, preloaded into the real worker (`node --import tsx --import
 * ./scripts/crashpoints-preload.mjs server/main.ts`) by the crash-point harness only. It adds, to the
 * worker that server/boot/worker.ts builds, an activity interceptor (every activity and local
 * activity: before it runs, after it returned) and a workflow interceptor whose sink reports each
 * workflow activation's commands just before the worker sends them (the end of a workflow task),
 * and it does what the armed point asks (control.ts). The product's code has no test branch:
 * without CRASHPOINT_DIR this module changes nothing.
 */
import { appendFileSync, existsSync, renameSync } from 'node:fs';
import { Worker, type ActivityInterceptorsFactory, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import { WORKFLOW_HOOK, armedFile, firedFile, readArmed, resumeFile, traceFile, type CrashAction } from './control';
import type { CrashpointSinks } from './workflowHook';

const dir = process.env.CRASHPOINT_DIR;
/** A workflow bundle built with ./workflowHook.ts in it (restarts then skip bundling). */
const bundle = process.env.CRASHPOINT_BUNDLE;
/** How long a starting activity is held after a graceful stop: past the worker's grace (half of SHUTDOWN_TIMEOUT_MS). */
const holdMs = Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000) / 2 + 1_500;

/** Per armed case: how often each named thing was passed, so `llmChat#2` is the second. */
let countsFor = '';
const counts = new Map<string, number>();

function nextCount(caseId: string, name: string): number {
  if (countsFor !== caseId) {
    countsFor = caseId;
    counts.clear();
  }
  const n = (counts.get(name) ?? 0) + 1;
  counts.set(name, n);
  return n;
}

/** Blocks the whole process (a sink or an interceptor cannot be preempted otherwise) for up to `ms`. */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Passes the named points; returns the action when one of them is the armed point (then it is disarmed). */
function pass(points: (caseId: string) => string[]): CrashAction | null {
  if (!dir) return null;
  const armed = readArmed(dir);
  if (!armed) return null;
  const names = points(armed.caseId);
  appendFileSync(traceFile(dir, armed.caseId), names.map((n) => `${n}\n`).join(''));
  if (armed.point === null || !names.includes(armed.point)) return null;
  try {
    renameSync(armedFile(dir), firedFile(dir, armed.caseId));
  } catch {
    return null; // another attempt fired it first
  }
  if (armed.action === 'sigkill') {
    process.kill(process.pid, 'SIGKILL');
    blockFor(60_000);
  }
  if (armed.action === 'sigterm') process.kill(process.pid, 'SIGTERM');
  if (armed.action === 'pause') {
    const until = Date.now() + 20_000;
    while (!existsSync(resumeFile(dir, armed.caseId)) && Date.now() < until) blockFor(50);
  }
  return armed.action;
}

const activityHook: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const name = ctx.info.activityType;
      let n = 0;
      const started = pass((caseId) => [`${name}#${(n = nextCount(caseId, name))}:started`]);
      if (started === 'sigterm' && !ctx.info.isLocal) {
        // Past the grace: the drain cancels it, then the activity's own code meets the cancel.
        await Promise.race([ctx.cancelled.catch(() => undefined), new Promise((r) => setTimeout(r, holdMs))]);
      }
      const result: unknown = await next(input);
      pass(() => [`${name}#${n}:completed`]);
      return result;
    },
  },
});

/** A workflow command as a point's name: `schedule:llmChat`, `child:subAgentRun`, `update-accepted`… */
export type CommandName = string;

const sinks: InjectedSinks<CrashpointSinks> = {
  crashpoints: {
    taskEnding: {
      fn: (_info, commands: CommandName[]) => {
        pass((caseId) => commands.map((c) => `task:${c}#${nextCount(caseId, `task:${c}`)}`));
      },
    },
  },
};

function withCrashpoints(options: WorkerOptions): WorkerOptions {
  const { workflowsPath, bundlerOptions, ...rest } = options;
  return {
    ...rest,
    ...(bundle
      ? { workflowBundle: { codePath: bundle } }
      : { workflowsPath, bundlerOptions, ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}) }),
    interceptors: {
      ...options.interceptors,
      activity: [...(options.interceptors?.activity ?? []), activityHook],
      // A prebuilt bundle has the workflow hook in it already (topology.ts).
      ...(bundle ? {} : { workflowModules: [...(options.interceptors?.workflowModules ?? []), WORKFLOW_HOOK] }),
    },
    sinks: { ...options.sinks, ...sinks },
  };
}

if (dir) {
  const create = Worker.create.bind(Worker);
  Worker.create = (options: WorkerOptions) => create(withCrashpoints(options));
}
