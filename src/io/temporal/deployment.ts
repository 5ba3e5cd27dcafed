/**
 * Worker versioning (Temporal Worker Deployments): which version a worker process is, and making
 * a freshly deployed version the one new runs start on.
 *
 * A worker of the deployment polls as `deploymentName` + `buildId`. The server routes a new run
 * to the deployment's *current* version; a pinned run stays on the version that started it, so an
 * old version keeps serving its paused runs while new ones go to the new code (docs/ARCHITECTURE.md,
 * "Deploying workflow changes").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isGrpcServiceError, type Connection } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';

export const DEFAULT_DEPLOYMENT_NAME = 'agent-canvas';

/** gRPC status codes the describe and set calls answer with. */
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/**
 * The build id: `WORKER_BUILD_ID` when set (images stamp it at build time, where there is no
 * .git), else the package version and the short commit, e.g. `0.1.0-3d43236`; `-dirty` when the
 * work tree has uncommitted changes, so two different codes never share a build id by accident.
 */
export function workerBuildId(projectRoot: string, override?: string): string {
  if (override) return override;
  const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const git = (args: string[]) => execFileSync('git', ['-C', projectRoot, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git(['rev-parse', '--short=7', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    return `${version}-${commit}${dirty ? '-dirty' : ''}`;
  } catch {
    return version;
  }
}

/** How the server spells a version in visibility queries and version strings (`name:build`). */
export function versionString(version: WorkerDeploymentVersion): string {
  return `${version.deploymentName}:${version.buildId}`;
}

/** What {@link promoteVersion} did. */
export type Promotion = { action: 'already-current' } | { action: 'promoted'; previous: string | null } | { action: 'kept'; current: string };

/**
 * Makes `version` the deployment's current version, forward only: a worker of an *older* version
 * restarting during a rollout (a crash, a rescheduled pod) must not route new runs back to old
 * code. Older means created earlier: the server records when it first saw each version. So the
 * version becomes current when there is none yet, when it is new to the server, or when the
 * current one is older than it.
 */
export async function promoteVersion(
  connection: Connection,
  namespace: string,
  version: WorkerDeploymentVersion,
  opts: { identity?: string; timeoutMs?: number } = {},
): Promise<Promotion> {
  const service = connection.workflowService;
  const info = await describeDeployment(connection, namespace, version.deploymentName);
  const current = info?.routingConfig?.currentDeploymentVersion;
  if (current?.buildId === version.buildId) return { action: 'already-current' };
  const created = (buildId: string | null | undefined) => {
    const summary = info?.versionSummaries?.find((s) => s.deploymentVersion?.buildId === buildId);
    return summary?.createTime?.seconds ? Number(summary.createTime.seconds) * 1000 + Math.floor((summary.createTime.nanos ?? 0) / 1e6) : null;
  };
  const ours = created(version.buildId);
  const theirs = current?.buildId ? created(current.buildId) : null;
  if (current?.buildId && ours !== null && theirs !== null && theirs > ours) {
    return { action: 'kept', current: versionString({ deploymentName: version.deploymentName, buildId: current.buildId }) };
  }
  // The version exists once one of its workers has polled; until then the server refuses it.
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: opts.identity ?? 'agent-canvas worker',
        ignoreMissingTaskQueues: true,
      });
      return { action: 'promoted', previous: current?.buildId ? versionString({ deploymentName: version.deploymentName, buildId: current.buildId }) : null };
    } catch (err) {
      const retryable = isGrpcServiceError(err) && (err.code === GRPC_NOT_FOUND || err.code === GRPC_FAILED_PRECONDITION);
      if (!retryable || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The deployment's description, or null when no worker of it has polled yet. */
export async function describeDeployment(connection: Connection, namespace: string, deploymentName: string) {
  try {
    const res = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    return res.workerDeploymentInfo ?? null;
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return null;
    throw err;
  }
}
