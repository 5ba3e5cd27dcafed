/**
 * A throwaway MySQL or MariaDB server for tests, when the machine has one installed (`mariadbd`
 * or `mysqld`; nothing is installed here): a data directory in a temp dir, a free port on
 * 127.0.0.1, a database and a password user created over the unix socket, all deleted on stop.
 * Without a server binary it says why, and the tests skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import mysql from 'mysql2/promise';

export type StartedMysql = { host: string; port: number; database: string; user: string; password: string; flavor: 'mariadb' | 'mysql'; stop(): Promise<void> };
export type SkippedMysql = { skipped: string };

function which(names: string[]): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/mysql/bin'];
  for (const name of names) {
    for (const dir of dirs) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitForSocket(socketPath: string, child: ChildProcess, timeoutMs: number): Promise<mysql.Connection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      return await mysql.createConnection({ socketPath, user: 'root' });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Starts a server, or explains why it cannot. */
export async function startMysql(): Promise<StartedMysql | SkippedMysql> {
  const server = which(['mariadbd', 'mysqld']);
  if (!server) return { skipped: 'no mariadbd or mysqld binary on this machine (the MySQL variant of the ExeSQL tests needs one)' };
  const flavor = server.endsWith('mariadbd') || /mariadb/i.test(spawnSync(server, ['--version'], { encoding: 'utf8' }).stdout ?? '') ? 'mariadb' : 'mysql';
  const dir = mkdtempSync(join(tmpdir(), 'agent-canvas-mysql-'));
  const dataDir = join(dir, 'data');
  const socketPath = join(dir, 'mysql.sock');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const init =
    flavor === 'mariadb'
      ? spawnSync(
          which(['mariadb-install-db', 'mysql_install_db']) ?? 'mariadb-install-db',
          ['--no-defaults', `--datadir=${dataDir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...asRoot],
          { encoding: 'utf8' },
        )
      : spawnSync(server, ['--no-defaults', '--initialize-insecure', `--datadir=${dataDir}`, ...asRoot], { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { skipped: `could not initialize a ${flavor} data directory: ${(init.stderr || init.stdout || String(init.error)).slice(0, 300)}` };
  }
  const port = await freePort();
  const args = [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--socket=${socketPath}`,
    `--pid-file=${join(dir, 'mysql.pid')}`,
    ...asRoot,
    ...(flavor === 'mysql' ? ['--mysqlx=OFF'] : []),
  ];
  const child = spawn(server, args, { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const admin = await waitForSocket(socketPath, child, 60_000);
    const [database, user, password] = ['exesql_test', 'exesql', 'exesql-pw'];
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
    await admin.query(`GRANT ALL ON ${database}.* TO '${user}'@'%'`);
    await admin.end();
    return { host: '127.0.0.1', port, database, user, password, flavor, stop };
  } catch (err) {
    await stop();
    return { skipped: `the ${flavor} server did not start: ${err instanceof Error ? err.message : String(err)}` };
  }
}
