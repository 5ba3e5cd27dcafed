/**
 * A real, throwaway PostgreSQL server for tests: initdb in a temp dir, started on a free port,
 * stopped and deleted afterwards. `TEST_DATABASE_URL` short-circuits all of it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { pickFreePort } from '../../src/io/temporal/ports';

export type StartedPostgres = { url: string; stop(): Promise<void> };
export type SkippedPostgres = { skipped: string };

const DATABASE = 'agent_canvas_test';
const INSTALL_HINT = 'install the Debian package postgresql (apt-get install postgresql) or set TEST_DATABASE_URL';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Directory holding both initdb and pg_ctl: PATH first, then the newest /usr/lib/postgresql/N/bin. */
function findPostgresBin(): string | null {
  const hasBoth = (dir: string) => isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'pg_ctl'));
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && hasBoth(dir)) return dir;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) if (hasBoth(join(root, version, 'bin'))) return join(root, version, 'bin');
  return null;
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** initdb refuses to run as root: then every server command runs as the `postgres` OS user. */
function commandFor(bin: string, args: string[], asPostgres: boolean): [string, string[]] {
  if (!asPostgres) return [bin, args];
  if (isExecutable('/usr/sbin/runuser') || isExecutable('/sbin/runuser')) return ['runuser', ['-u', 'postgres', '--', bin, ...args]];
  return ['su', ['postgres', '-s', '/bin/sh', '-c', [bin, ...args].map(shellQuote).join(' ')]];
}

/**
 * Runs a command to completion. Waits for 'exit', not 'close': the postmaster started by
 * `pg_ctl start` may keep inherited pipes open long after pg_ctl itself is done.
 */
function run(command: [string, string[]], timeoutMs = 60_000): Promise<void> {
  const [file, args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

async function createDatabase(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/**
 * Starts a PostgreSQL server for this test process, or explains why it cannot.
 * Uses `TEST_DATABASE_URL` as is when set (then `stop()` does nothing).
 */
export async function startPostgres(): Promise<StartedPostgres | SkippedPostgres> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };

  const binDir = findPostgresBin();
  if (!binDir) return { skipped: `PostgreSQL binaries not found (${INSTALL_HINT})` };
  const asPostgres = process.getuid?.() === 0;
  const ids = asPostgres ? postgresUserIds() : null;
  if (asPostgres && !ids) return { skipped: `running as root and there is no 'postgres' OS user to run initdb as (${INSTALL_HINT})` };

  const dir = mkdtempSync(join(tmpdir(), 'agent-canvas-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (ids) {
    chownSync(dir, ids.uid, ids.gid);
    // pg_ctl -l must be able to write the log as the postgres user.
    writeFileSync(logFile, '');
    chownSync(logFile, ids.uid, ids.gid);
  }
  const pgCtl = join(binDir, 'pg_ctl');
  const stopServer = () => run(commandFor(pgCtl, ['stop', '-D', dataDir, '-m', 'immediate', '-w'], asPostgres), 30_000);
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });

  let port = 0;
  try {
    await run(commandFor(join(binDir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-locale', '-E', 'UTF8'], asPostgres));
    // The free port may be taken between the probe and the server's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await pickFreePort();
      const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await run(commandFor(pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions], asPostgres), 90_000);
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    await createDatabase(port);
  } catch (err) {
    await stopServer().catch(() => {});
    cleanUp();
    throw err;
  }

  // Should the test process die without calling stop(), do not leave a server behind.
  const onExit = () => {
    try {
      const [file, args] = commandFor(pgCtl, ['stop', '-D', dataDir, '-m', 'immediate'], asPostgres);
      execFileSync(file, args, { stdio: 'ignore' });
    } catch {
      // Already stopped.
    }
    cleanUp();
  };
  process.once('exit', onExit);

  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      try {
        await stopServer();
      } finally {
        cleanUp();
      }
    },
  };
}
