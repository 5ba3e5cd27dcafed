/**
 * `npm run versions`: the worker deployment's versions, which one new runs go to, the runs each
 * still holds and whether its workers may be stopped.
 *
 *   npm run versions                          list (exit 0; 3 when no worker of the deployment has polled)
 *   npm run versions -- set-current <buildId> route new runs to that version (a rollback, or WORKER_PROMOTE=manual)
 *
 * Server: TEMPORAL_ADDRESS (default 127.0.0.1:$TEMPORAL_PORT, 7233: what `npm start` runs),
 * TEMPORAL_NAMESPACE (default `default`); deployment: WORKER_DEPLOYMENT_NAME (default agent-canvas).
 */
import { Connection } from '@temporalio/client';
import { DEFAULT_DEPLOYMENT_NAME } from '../src/io/temporal/deployment';
import { listDeploymentVersions, type VersionReport } from '../src/io/temporal/deploymentVersions';

const address = process.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${process.env.TEMPORAL_PORT ?? '7233'}`;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const deploymentName = process.env.WORKER_DEPLOYMENT_NAME ?? DEFAULT_DEPLOYMENT_NAME;
const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const connection = await Connection.connect({ address, connectTimeout: '5 seconds' }).catch((err: unknown) => {
    throw new Error(`cannot reach Temporal at ${address} (set TEMPORAL_ADDRESS): ${err instanceof Error ? err.message : String(err)}`);
  });
  try {
    const [command, buildId] = argv;
    if (command === 'set-current') {
      if (!buildId) throw new Error('usage: npm run versions -- set-current <buildId>');
      await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity: 'npm run versions' });
      out(`${deploymentName}:${buildId} is now current: new runs start on it.`);
      return 0;
    }
    if (command) throw new Error(`unknown command ${command}; usage: npm run versions [-- set-current <buildId>]`);
    const versions = await listDeploymentVersions(connection, namespace, deploymentName);
    if (!versions) {
      out(`No worker deployment "${deploymentName}" on ${address} (namespace ${namespace}): no versioned worker has polled yet (WORKER_VERSIONING=1).`);
      return 3;
    }
    printTable(versions);
    return 0;
  } finally {
    await connection.close();
  }
}

function printTable(versions: VersionReport[]): void {
  const rows = versions.map((v) => [
    v.buildId,
    v.role + (v.rampPercentage !== null ? ` ${v.rampPercentage}%` : ''),
    v.createdAt?.replace(/\.\d+Z$/, 'Z') ?? '',
    String(v.running),
    v.paused === null ? '?' : String(v.paused),
    `${v.retire.ok ? 'yes' : 'no'}: ${v.retire.why}`,
  ]);
  const header = ['BUILD ID', 'ROLE', 'CREATED', 'OPEN RUNS', 'PAUSED', 'MAY RETIRE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  out(`Worker deployment ${deploymentName} on ${address} (namespace ${namespace})`);
  out();
  out(line(header));
  for (const r of rows) out(line(r));
  out();
  out('Open runs: workflows whose tasks go to that version (pinned runs stay until they close). Paused: of those, waiting for inputs.');
  out('Retire a version (stop its workers) once it is neither current nor ramping and no open run uses it.');
  out(`The same with the Temporal CLI: temporal worker deployment describe --name ${deploymentName} --address ${address}`);
  out(`  temporal workflow count --query "TemporalWorkerDeploymentVersion='${deploymentName}:<buildId>' AND ExecutionStatus='Running'" --address ${address}`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
