/**
 * The admin API key at boot, over real starts of the server on one data folder: a generated key
 * is shown once, masked, by the start that made it; no process ever prints a key; setting a new
 * API_KEY revokes the one before (and the generated one), keys made through the API stay valid,
 * and a replaced value refuses to come back.
 */
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appEnv, freePort, startAppProcess, type AppProcess } from '../helpers/appProcess';
import { exitOf, health, waitForOutput, waitHealthStatus } from './processControl';

const K1 = 'rotation-test-key-one-0123456789';
const K2 = 'rotation-test-key-two-0123456789';

let dataDir: string;
let port: number;
let base: string;
let running: AppProcess | null = null;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-keyboot-'));
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await running?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the server on the shared data folder; `apiKey: null` leaves API_KEY unset. */
function start(apiKey: string | null, role: 'all' | 'api' | 'worker' = 'all'): AppProcess {
  const env = appEnv({
    port,
    dataDir,
    apiKey: apiKey ?? '',
    llmUrl: 'http://127.0.0.1:9/v1',
    temporalAddress: inject('temporalAddress'),
    extra: { AGENT_CANVAS_ROLE: role, METRICS_PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '5000' },
  });
  if (apiKey === null) delete env.API_KEY;
  running = startAppProcess(env);
  return running;
}

async function started(apiKey: string | null, role: 'all' | 'api' | 'worker' = 'all'): Promise<AppProcess> {
  const app = start(apiKey, role);
  if (role === 'worker') await waitForOutput(app, 'agent-canvas is running');
  // An API-only process with no worker on its queue answers 503 (degraded); it serves requests all the same.
  else if (role === 'api') await health(base, app);
  else expect(await waitHealthStatus(base, app, 200)).toMatchObject({ status: 200 });
  return app;
}

async function stop(app: AppProcess): Promise<string> {
  app.proc.kill('SIGTERM');
  await exitOf(app, 60_000);
  running = null;
  return app.output();
}

const statusWith = async (key: string) => (await fetch(`${base}/api/v1/agents`, { headers: { authorization: `Bearer ${key}` } })).status;

describe('the admin API key across restarts', () => {
  it('shows a generated key once and masked, never prints a key, and revokes the previous key when API_KEY changes', async () => {
    // First start: a key is generated, kept in the data folder, and shown masked.
    let app = await started(null);
    const generated = readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    expect(await statusWith(generated)).toBe(200);
    const made = (await (await fetch(`${base}/api/v1/system/tokens`, { method: 'POST', headers: { authorization: `Bearer ${generated}` } })).json()) as {
      data: { token: string };
    };
    let output = await stop(app);
    expect(output).not.toContain(generated);
    expect(output).toContain(`${generated.slice(0, 10)}…${generated.slice(-2)}`);
    expect(output).toContain(path.join(dataDir, 'api-key'));

    // The next start shows it no more, not even masked.
    app = await started(null);
    expect(await statusWith(generated)).toBe(200);
    output = await stop(app);
    expect(output).not.toContain(generated.slice(-6));

    // API_KEY set (an API-only process): the generated key is revoked and its file removed.
    app = await started(K1, 'api');
    expect({ k1: await statusWith(K1), generated: await statusWith(generated), made: await statusWith(made.data.token) }).toEqual({
      k1: 200,
      generated: 401,
      made: 200,
    });
    expect(existsSync(path.join(dataDir, 'api-key'))).toBe(false);
    expect(await stop(app)).not.toContain(K1);

    // A new API_KEY revokes the previous one; the key made through the API stays.
    app = await started(K2);
    expect({ k2: await statusWith(K2), k1: await statusWith(K1), made: await statusWith(made.data.token) }).toEqual({ k2: 200, k1: 401, made: 200 });
    expect(await stop(app)).not.toContain(K2);

    // A worker neither prints nor provisions a key: its stale API_KEY revokes nothing.
    app = await started(K1, 'worker');
    output = await stop(app);
    expect(output).not.toContain(K1);
    expect(output).not.toMatch(/API key/);

    // The replaced value cannot come back: the start fails, naming the variable.
    app = start(K1);
    const ended = await exitOf(app, 120_000);
    running = null;
    expect(ended.code).not.toBe(0);
    expect(app.output()).toMatch(/API_KEY was replaced by a newer key/);
    expect(app.output()).not.toContain(K1);
    app = await started(K2);
    expect(await statusWith(K2)).toBe(200);
    await stop(app);
  }, 600_000);
});
