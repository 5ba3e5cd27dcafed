/**
 * The setup the process tests share (they kill and restart the app): per test file a scripted
 * model, a fresh data folder and a free port, and the app process started on them; after the
 * file the last process is killed, the model stopped and the folder removed. Call it at the top
 * level of a test file: it registers its own beforeAll and afterAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from './appProcess';
import { startScriptedLlm, type ScriptedLlm } from './scriptedLlm';

export interface AppProcessSuite {
  readonly llm: ScriptedLlm;
  /** The app's address, `http://127.0.0.1:<port>` (the same across restarts). */
  readonly base: string;
  /** The headers of an authenticated JSON request. */
  readonly auth: { authorization: string; 'content-type': string };
  /** The app's environment: this suite's port, data folder, key and model; Temporal at `temporalAddress` (default: the shared dev server). */
  env(opts?: { temporalAddress?: string; extra?: Record<string, string> }): Record<string, string>;
  /** Starts the app process with `env` (the one before it must be killed) and waits until it is healthy. */
  start(env: Record<string, string>, healthyWithinMs?: number): Promise<AppProcess>;
}

/** `name` names the data folder (`agent-canvas-<name>-…`) and the API key. */
export function appProcessSuite(name: string): AppProcessSuite {
  const key = `${name}-key-${randomUUID()}`;
  let llm: ScriptedLlm | undefined;
  let dataDir: string | undefined;
  let port: number | undefined;
  let child: AppProcess | null = null;

  beforeAll(async () => {
    llm = await startScriptedLlm();
    dataDir = mkdtempSync(path.join(os.tmpdir(), `agent-canvas-${name}-`));
    port = await freePort();
  });

  afterAll(async () => {
    await child?.kill();
    await llm?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`appProcessSuite(${name}): ${what} is set up in beforeAll`);
    return value;
  };

  return {
    get llm() {
      return ready(llm, 'the scripted model');
    },
    get base() {
      return `http://127.0.0.1:${ready(port, 'the port')}`;
    },
    auth: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    env: (opts = {}) =>
      appEnv({
        port: ready(port, 'the port'),
        dataDir: ready(dataDir, 'the data folder'),
        apiKey: key,
        llmUrl: ready(llm, 'the scripted model').url,
        temporalAddress: opts.temporalAddress ?? inject('temporalAddress'),
        ...(opts.extra ? { extra: opts.extra } : {}),
      }),
    start: async (env, healthyWithinMs) => {
      child = startAppProcess(env);
      await waitHealthy(`http://127.0.0.1:${ready(port, 'the port')}`, child, healthyWithinMs);
      return child;
    },
  };
}
