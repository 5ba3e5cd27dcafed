/**
 * A throwaway PostgreSQL cluster that a test can stop (`pg_ctl stop -m fast`, what an operator or
 * a failover does) and start again on the same port and data directory, to stage an outage.
 * test/helpers/postgres.ts starts one that only ever stops at the end.
 */
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pickFreePort } from '../../src/io/temporal/ports';

export interface RestartablePostgres {
  url: string;
  /** `pg_ctl stop -m fast`: open connections are terminated, new ones refused. */
  stop(): Promise<void>;
  /** Starts the same cluster again, same port, same data. */
  start(): Promise<void>;
  /** Stops it for good and deletes its files. */
  destroy(): Promise<void>;
}

const DATABASE = 'agent_canvas_outage';

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  for (const v of readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
    const dir = join(root, v, 'bin');
    try {
      accessSync(join(dir, 'pg_ctl'), constants.X_OK);
      return dir;
    } catch {
      // not this version
    }
  }
  return null;
}

function run(file: string, args: string[], asPostgres: boolean, timeoutMs = 90_000): Promise<void> {
  const [cmd, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    // 'exit', not 'close': the postmaster keeps inherited pipes open.
    const child = spawn(cmd as string, argv as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args.join(' ')} failed (exit ${code}):\n${output}`));
    });
  });
}

/** Null when PostgreSQL's binaries are not installed (apt-get install postgresql). */
export async function startRestartablePostgres(): Promise<RestartablePostgres | null> {
  const bin = binDir();
  if (!bin) return null;
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'agent-canvas-outage-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asPostgres) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    writeFileSync(logFile, '');
    chownSync(logFile, uid, gid);
  }
  await run(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-locale', '-E', 'UTF8'], asPostgres);
  const port = await pickFreePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => run(join(bin, 'pg_ctl'), ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', options], asPostgres);
  const stop = (mode: 'fast' | 'immediate') => run(join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', mode, '-w'], asPostgres, 60_000);
  await start();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();

  const onExit = () => {
    try {
      execFileSync(
        asPostgres ? 'runuser' : join(bin, 'pg_ctl'),
        [...(asPostgres ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), 'stop', '-D', dataDir, '-m', 'immediate'],
        {
          stdio: 'ignore',
        },
      );
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`,
    stop: () => stop('fast'),
    start,
    async destroy() {
      process.off('exit', onExit);
      await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
