/**
 * The product's own processes as Worker Deployment versions: with WORKER_VERSIONING=1 (what
 * `npm start` sets) a process's worker polls as its build, makes it current, and serves runs; a
 * second build started later takes over new runs; `npm run versions` shows both and says the first
 * (holding no run) may be retired.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from '../helpers/appProcess';
import { dsl } from '../helpers/canvasKit';

const root = path.resolve(__dirname, '../..');
const deploymentName = `start-test-${randomUUID().slice(0, 8)}`;
const taskQueue = `start-versioned-${randomUUID()}`;
const apiKey = `key-${randomUUID()}`;
const apps: AppProcess[] = [];
const dirs: string[] = [];

async function startBuild(buildId: string): Promise<string> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-versioned-'));
  dirs.push(dataDir);
  const env = appEnv({ port, dataDir, apiKey, llmUrl: 'http://127.0.0.1:9/v1', temporalAddress: inject('temporalAddress') });
  const app = startAppProcess({
    ...env,
    TASK_QUEUE: taskQueue,
    METRICS_PORT: '0',
    WORKER_VERSIONING: '1',
    WORKER_DEPLOYMENT_NAME: deploymentName,
    WORKER_BUILD_ID: buildId,
  });
  apps.push(app);
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, app, 180_000);
  return base;
}

async function api(base: string, route: string, body: unknown): Promise<{ data: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Record<string, unknown> };
}

async function answer(base: string, query: string): Promise<string> {
  const canvas = dsl({ begin: { name: 'Begin', downstream: ['Message:m'] }, 'Message:m': { name: 'Message', params: { content: ['hi {sys.query}'] } } });
  const agent = await api(base, '/agents', { title: `versioned ${randomUUID()}`, dsl: canvas });
  const reply = await api(base, '/agents/chat/completions', { agent_id: agent.data.id, query, stream: false });
  const content = (reply.data?.data as { content?: unknown } | undefined)?.content;
  if (typeof content !== 'string') throw new Error(`no answer: ${JSON.stringify(reply)}`);
  return content;
}

async function versions(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/versions.ts', ...args], {
    cwd: root,
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), WORKER_DEPLOYMENT_NAME: deploymentName },
  });
  return stdout;
}

afterAll(async () => {
  for (const app of apps) await app.kill();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm start as a worker deployment version', () => {
  it('serves runs on its build, a later build takes new runs, the operator command shows which may retire and rolls back', async () => {
    const first = await startBuild('v1');
    expect(apps[0]!.output()).toContain(`Worker version ${deploymentName}:v1   (promoted`);
    expect(await answer(first, 'one')).toBe('hi one');

    // Each process keeps its own store (PGlite), so a run answers through a process's API only when
    // that process's worker ran it: which build took a run is visible in whether it answers.
    const second = await startBuild('v2');
    expect(apps[1]!.output()).toContain(`Worker version ${deploymentName}:v2   (promoted`);
    expect(await answer(second, 'two')).toBe('hi two');

    const table = await versions();
    process.stdout.write(table);
    expect(table).toMatch(/^v1\s+\S+.*\s0\s+0\s+yes: /m);
    expect(table).toMatch(/^v2\s+current\s.*no: new runs start here/m);

    // A rollback: the operator routes new runs back to v1.
    expect(await versions('set-current', 'v1')).toContain(`${deploymentName}:v1 is now current`);
    expect(await versions()).toMatch(/^v1\s+current\s/m);
    expect(await answer(first, 'three')).toBe('hi three');
  }, 420_000);
});
