/**
 * The scaled-out topology as real processes on this machine: API processes and worker processes
 * apart (`AGENT_CANVAS_ROLE`), one shared PostgreSQL, one task queue, a Temporal server apart.
 * Members can be SIGKILLed and started again on the same port with the same environment, which
 * is what the scale-out, outage and chaos runs do to them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { appEnv, freePort, startAppProcess, waitHealthy, type AppProcess } from './appProcess';

export type ClusterRole = 'api' | 'worker';

export interface ClusterMember {
  readonly role: ClusterRole;
  /** `api-1`, `worker-2`… */
  readonly name: string;
  /** An API member's address (`http://127.0.0.1:port`); a worker's port is unused. */
  readonly base: string;
  /** The current process, null while the member is down. */
  app: AppProcess | null;
  /** Every pid this member has had: a worker's Temporal identity is `<pid>@<host>`. */
  readonly pids: number[];
  /** Output of the member's earlier processes (they were killed), for failure messages. */
  history: string;
}

export interface Cluster {
  readonly apiKey: string;
  readonly taskQueue: string;
  readonly apis: ClusterMember[];
  readonly workers: ClusterMember[];
  /** Headers of an authenticated JSON request. */
  readonly auth: Record<string, string>;
  /** Starts a member that is down, and waits until it serves (API: /health 200; worker: its banner). */
  start(member: ClusterMember, timeoutMs?: number): Promise<void>;
  /** SIGKILLs a member, waiting until its process is gone. */
  kill(member: ClusterMember): Promise<void>;
  /** Which member a Temporal worker identity (`<pid>@<host>`) belongs to, if any. */
  memberOfIdentity(identity: string): ClusterMember | undefined;
  /** Kills every member and deletes their data folders. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  temporalAddress: string;
  databaseUrl: string;
  llmUrl: string;
  workers: number;
  apis: number;
  /** Extra environment for every member (TAVILY_BASE_URL…). */
  extra?: Record<string, string>;
  /** Extra environment for one member, by name (`worker-1`): e.g. its own TEMPORAL_ADDRESS through a relay. */
  memberExtra?: Record<string, Record<string, string>>;
}

async function waitForBanner(app: AppProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!app.output().includes('agent-canvas is running')) {
    if (app.proc.exitCode !== null || app.proc.signalCode !== null) throw new Error(`the worker exited before it ran:\n${app.output().slice(-3000)}`);
    if (Date.now() > until) throw new Error(`the worker did not start within ${timeoutMs} ms:\n${app.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts the workers first (the APIs' /health waits for pollers), then the API processes. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const apiKey = `cluster-key-${randomUUID()}`;
  const taskQueue = `cluster-${randomUUID()}`;
  const dataRoot = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-cluster-'));
  // Processes sharing a database must share the secret their API keys are hashed with.
  const apiKeySecret = randomBytes(32).toString('base64url');
  // METRICS_PORT 0: workers on one machine would all want the default metrics port.
  // The workers run as one Worker Deployment version, as a production rollout does (server/boot/worker.ts);
  // a deployment name of its own keeps clusters sharing a Temporal server apart.
  const deployment = { WORKER_VERSIONING: 'true', WORKER_DEPLOYMENT_NAME: `cluster-${randomUUID()}`, WORKER_BUILD_ID: 'cluster-build-1' };
  const envs = new Map<ClusterMember, Record<string, string>>();
  /** API members that have answered /health once (their port is theirs). */
  const served = new Set<ClusterMember>();

  const member = async (role: ClusterRole, index: number): Promise<ClusterMember> => {
    const port = await freePort();
    const m: ClusterMember = { role, name: `${role}-${index}`, base: `http://127.0.0.1:${port}`, app: null, pids: [], history: '' };
    envs.set(
      m,
      appEnv({
        port,
        dataDir: path.join(dataRoot, m.name),
        apiKey,
        llmUrl: opts.llmUrl,
        temporalAddress: opts.temporalAddress,
        extra: {
          AGENT_CANVAS_ROLE: role,
          DATABASE_URL: opts.databaseUrl,
          TASK_QUEUE: taskQueue,
          API_KEY_SECRET: apiKeySecret,
          // A tenant of its own: clusters sharing a database (TEST_DATABASE_URL) would otherwise
          // revoke each other's API_KEY (a new value replaces the tenant's provisioned key).
          DEFAULT_TENANT_ID: taskQueue,
          ...deployment,
          METRICS_PORT: '0',
          ...opts.extra,
          ...opts.memberExtra?.[m.name],
        },
      }),
    );
    return m;
  };
  const workers = await Promise.all(Array.from({ length: opts.workers }, (_, i) => member('worker', i + 1)));
  const apis = await Promise.all(Array.from({ length: opts.apis }, (_, i) => member('api', i + 1)));

  const cluster: Cluster = {
    apiKey,
    taskQueue,
    apis,
    workers,
    auth: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    async start(m, timeoutMs = 300_000) {
      if (m.app) throw new Error(`${m.name} is already running`);
      const app = startAppProcess(envs.get(m)!);
      m.app = app;
      if (app.proc.pid) m.pids.push(app.proc.pid);
      if (m.role === 'worker') return waitForBanner(app, timeoutMs);
      try {
        await waitHealthy(m.base, app, timeoutMs);
        served.add(m);
      } catch (err) {
        // The port picked free was taken before the member's first start bound it (another test's
        // processes, an outgoing connection's ephemeral port): before it ever served, it moves to
        // another (a few times at most); a restart keeps its port.
        if (served.has(m) || m.pids.length > 3 || !app.output().includes('EADDRINUSE')) throw err;
        await cluster.kill(m);
        const port = await freePort();
        envs.set(m, { ...envs.get(m)!, PORT: String(port) });
        (m as { base: string }).base = `http://127.0.0.1:${port}`;
        await cluster.start(m, timeoutMs);
      }
    },
    async kill(m) {
      const app = m.app;
      if (!app) return;
      m.app = null;
      await app.kill();
      m.history += app.output();
    },
    memberOfIdentity(identity) {
      const pid = Number(identity.split('@')[0]);
      return [...workers, ...apis].find((m) => m.pids.includes(pid));
    },
    async stop() {
      await Promise.all([...apis, ...workers].map((m) => cluster.kill(m)));
      rmSync(dataRoot, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(workers.map((w) => cluster.start(w)));
    await Promise.all(apis.map((a) => cluster.start(a)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** The worker identities in a workflow's history: who started its activities and its workflow tasks. */
export async function workerIdentitiesOf(client: Client, workflowId: string): Promise<{ activities: string[]; workflowTasks: string[] }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const activities: string[] = [];
  const workflowTasks: string[] = [];
  for (const e of history.events ?? []) {
    const a = e.activityTaskStartedEventAttributes?.identity;
    if (a) activities.push(a);
    const w = e.workflowTaskStartedEventAttributes?.identity;
    if (w) workflowTasks.push(w);
  }
  return { activities, workflowTasks };
}
