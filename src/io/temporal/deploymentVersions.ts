/**
 * What an operator asks before retiring a worker version (`npm run versions`): the deployment's
 * versions, which one new runs go to, how many runs each still holds and whether its workers may
 * be stopped.
 */
import type { Connection } from '@temporalio/client';
import { describeDeployment } from './deployment';

/** One version of the deployment, as the operator command prints it. */
export interface VersionReport {
  buildId: string;
  /** current: new runs start here; ramping: a share of them does; draining: pinned runs remain; drained: none remain; inactive: never current. */
  role: 'current' | 'ramping' | 'draining' | 'drained' | 'inactive';
  rampPercentage: number | null;
  createdAt: string | null;
  /** Open workflows whose version is this one (pinned runs, or auto-upgrade ones not yet moved on). */
  running: number;
  /** Of those, runs waiting for a person (our RunStatus search attribute is `paused`); null where the namespace lacks it. */
  paused: number | null;
  /** Whether this version's workers may be stopped now, and why (not). */
  retire: { ok: boolean; why: string };
}

/** The server's `VersionDrainageStatus` values. */
const DRAINAGE = { DRAINING: 1, DRAINED: 2 } as const;

export async function listDeploymentVersions(connection: Connection, namespace: string, deploymentName: string): Promise<VersionReport[] | null> {
  const info = await describeDeployment(connection, namespace, deploymentName);
  if (!info) return null;
  const routing = info.routingConfig;
  const currentBuild = routing?.currentDeploymentVersion?.buildId ?? null;
  const rampingBuild = routing?.rampingDeploymentVersion?.buildId ?? null;
  const reports: VersionReport[] = [];
  for (const summary of info.versionSummaries ?? []) {
    const buildId = summary.deploymentVersion?.buildId ?? '';
    // A visibility query string literal: quotes inside it escaped.
    const quoted = `'${`${deploymentName}:${buildId}`.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
    const [running, paused] = await Promise.all([
      count(connection, namespace, `TemporalWorkerDeploymentVersion = ${quoted} AND ExecutionStatus = 'Running'`),
      count(connection, namespace, `TemporalWorkerDeploymentVersion = ${quoted} AND ExecutionStatus = 'Running' AND RunStatus = 'paused'`).catch(() => null),
    ]);
    const drainage = summary.drainageInfo?.status ?? summary.drainageStatus ?? 0;
    const role: VersionReport['role'] =
      buildId === currentBuild
        ? 'current'
        : buildId === rampingBuild
          ? 'ramping'
          : drainage === DRAINAGE.DRAINED
            ? 'drained'
            : drainage === DRAINAGE.DRAINING
              ? 'draining'
              : summary.lastCurrentTime || summary.currentSinceTime
                ? 'draining'
                : 'inactive';
    reports.push({
      buildId,
      role,
      rampPercentage: role === 'ramping' ? (routing?.rampingVersionPercentage ?? 0) : null,
      createdAt: timestamp(summary.createTime),
      running,
      paused,
      retire: retirement(role, running),
    });
  }
  return reports.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
}

/**
 * The rule: a version that receives new runs is never retired; one that held runs may go once
 * none is open on it (the server's drainage status lags visibility by minutes, so the count
 * decides; `drained` confirms it).
 */
function retirement(role: VersionReport['role'], running: number): VersionReport['retire'] {
  if (role === 'current') return { ok: false, why: 'new runs start here' };
  if (role === 'ramping') return { ok: false, why: 'a share of new runs starts here' };
  if (running > 0) return { ok: false, why: `${running} run(s) pinned to it are still open` };
  return { ok: true, why: role === 'drained' ? 'drained: no open run uses it' : 'no open run uses it' };
}

async function count(connection: Connection, namespace: string, query: string): Promise<number> {
  const res = await connection.workflowService.countWorkflowExecutions({ namespace, query });
  return Number(res.count ?? 0);
}

function timestamp(t: { seconds?: unknown; nanos?: number | null } | null | undefined): string | null {
  if (!t?.seconds) return null;
  return new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString();
}
