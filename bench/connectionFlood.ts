/**
 * A bounded flood of slow connections against the HTTP server, while /health is timed from an
 * address outside the flood. Each flood connection sends part of a request's headers and stalls
 * (slowloris); the server should close it at its headers timeout, or at once when its address is
 * over the per-address limit, and keep answering /health throughout.
 *
 *   npx tsx bench/connectionFlood.ts                 # starts `server/main.ts` (demo model) itself
 *   FLOOD_BASE=http://127.0.0.1:8080 npx tsx bench/connectionFlood.ts   # or floods a running one
 *
 * Bounds (all capped): FLOOD_CONNECTIONS (default 20000, at most 20000), FLOOD_ADDRESSES (source
 * addresses 127.0.2.1…, default 1 = 127.0.0.1 only, at most 250), FLOOD_OPEN (at most this many
 * open at once, default 8000, kept below this process's file limit), FLOOD_SECONDS (default 90,
 * at most 300). HTTP_* variables are passed to the server it starts; FLOOD_SERVER_FILE_LIMIT sets
 * its `ulimit -n`. Prints numbers, asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickFreePort } from '../src/io/temporal/ports';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const bounded = (name: string, def: number, max: number) => Math.max(1, Math.min(max, Number(process.env[name] ?? def) || def));
const fileLimit = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 1024);
const TOTAL = bounded('FLOOD_CONNECTIONS', 20_000, 20_000);
const ADDRESSES = bounded('FLOOD_ADDRESSES', 1, 250);
const MAX_OPEN = Math.min(bounded('FLOOD_OPEN', 8000, 20_000), fileLimit - 500);
const SECONDS = bounded('FLOOD_SECONDS', 90, 300);
const PROBE_ADDRESS = '127.0.1.1';

const sourceAddress = (i: number) => (ADDRESSES === 1 ? '127.0.0.1' : `127.0.2.${(i % ADDRESSES) + 1}`);
const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!);
const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)} ms` : '—');

/** The prober's program: GET /health from a fresh connection every 250 ms, one JSON line each. */
const PROBER = `
const http = require('node:http');
const [base, localAddress] = process.argv.slice(1);
const url = new URL(base);
const once = () => new Promise((resolve) => {
  const started = performance.now();
  const req = http.request({ host: url.hostname, port: url.port, path: '/health', localAddress, agent: false, timeout: 10000 }, (res) => {
    res.resume();
    res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
  });
  req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
  req.on('error', (err) => resolve({ error: err.message }));
  req.end();
});
(async () => { for (;;) { process.stdout.write(JSON.stringify(await once()) + '\\n'); await new Promise((r) => setTimeout(r, 250)); } })();
`;

async function startServer(): Promise<{ base: string; stop(): Promise<void> }> {
  const [port, temporalPort, temporalUiPort] = [await pickFreePort(), await pickFreePort(), await pickFreePort()];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'flood-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/(_API_KEY|_BASE_URL|^DATABASE_URL|^TEMPORAL_ADDRESS|^LLM_)/.test(k)) env[k] = v;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEY: `flood-${randomBytes(8).toString('hex')}`,
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    TASK_QUEUE: `flood-${randomBytes(4).toString('hex')}`,
    LOAD_EXAMPLES: 'false',
    LOG_LEVEL: 'warn',
  });
  // FLOOD_SERVER_FILE_LIMIT: the server's own file limit (ulimit -n), to see what a flood does at it.
  const fileLimitArg = process.env.FLOOD_SERVER_FILE_LIMIT ? bounded('FLOOD_SERVER_FILE_LIMIT', 1024, 1_000_000) : null;
  const command = fileLimitArg ? ['/bin/sh', ['-c', `ulimit -n ${fileLimitArg} && exec "$0" "$@"`, process.execPath]] : [process.execPath, []];
  const child: ChildProcess = spawn(command[0] as string, [...(command[1] as string[]), '--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000;
  while ((await probe(base).catch(() => null))?.status !== 200) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`the server did not become healthy:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** GET /health on a fresh connection from PROBE_ADDRESS: status and latency. */
function probe(base: string): Promise<{ status: number; ms: number }> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/health', localAddress: PROBE_ADDRESS, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end();
  });
}

interface FloodStats {
  opened: number;
  refusedAtConnect: number;
  /** Lifetimes of sockets the server closed, ms. */
  closedByServer: number[];
  stillOpenAtEnd: number;
  maxOpen: number;
}

async function flood(base: string, deadline: number): Promise<FloodStats> {
  const url = new URL(base);
  const stats: FloodStats = { opened: 0, refusedAtConnect: 0, closedByServer: [], stillOpenAtEnd: 0, maxOpen: 0 };
  const sockets = new Set<ReturnType<typeof connect>>();
  let started = 0;
  let settled = 0;
  let ending = false;
  await new Promise<void>((done) => {
    const pump = () => {
      while (started < TOTAL && sockets.size < MAX_OPEN && Date.now() < deadline) {
        const i = started++;
        const opened = Date.now();
        let connected = false;
        const s = connect({ host: url.hostname, port: Number(url.port), localAddress: sourceAddress(i) });
        sockets.add(s);
        stats.maxOpen = Math.max(stats.maxOpen, sockets.size);
        s.on('connect', () => {
          connected = true;
          stats.opened++;
          s.write(`GET /health HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `);
        });
        s.on('data', () => {});
        s.on('error', () => {});
        s.on('close', () => {
          if (ending) return; // closed by us at the deadline, not by the server
          sockets.delete(s);
          settled++;
          if (!connected) stats.refusedAtConnect++;
          else stats.closedByServer.push(Date.now() - opened);
          if (settled >= TOTAL) done();
          else setImmediate(pump);
        });
      }
      if (Date.now() >= deadline) done();
    };
    pump();
    const timer = setInterval(() => {
      if (Date.now() >= deadline) {
        clearInterval(timer);
        done();
      } else pump();
    }, 200);
  });
  stats.stillOpenAtEnd = sockets.size;
  ending = true;
  for (const s of sockets) s.destroy();
  return stats;
}

async function main(): Promise<void> {
  const own = process.env.FLOOD_BASE ? null : await startServer();
  const base = process.env.FLOOD_BASE ?? own!.base;
  const before = await Promise.all([0, 1, 2, 3, 4].map(() => probe(base)));
  console.log(`flood: ${TOTAL} slow connections from ${ADDRESSES} address(es), at most ${MAX_OPEN} open at once, ${SECONDS} s at most; target ${base}`);
  console.log(`/health before: ${before.map((b) => `${b.status} in ${ms(b.ms)}`).join(', ')}`);
  const deadline = Date.now() + SECONDS * 1000;
  // The prober is its own process: timed in this one, its latency would include this process's
  // own event loop, busy with thousands of sockets.
  const prober = spawn(process.execPath, ['-e', PROBER, base, PROBE_ADDRESS], { stdio: ['ignore', 'pipe', 'inherit'] });
  const probes: Array<{ status: number; ms: number } | { error: string }> = [];
  let pending = '';
  prober.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) probes.push(JSON.parse(line) as { status: number; ms: number } | { error: string });
  });
  const t0 = Date.now();
  const stats = await flood(base, deadline);
  const floodMs = Date.now() - t0;
  const proberExited = new Promise((r) => prober.once('exit', r));
  prober.kill('SIGTERM');
  await proberExited;
  const ok = probes.filter((p): p is { status: number; ms: number } => 'status' in p && p.status === 200);
  const failed = probes.filter((p) => !('status' in p) || p.status !== 200);
  const latencies = ok.map((p) => p.ms);
  console.log(
    `flood took ${(floodMs / 1000).toFixed(1)} s; ${stats.opened} connected, ${stats.refusedAtConnect} refused at connect, most open at once ${stats.maxOpen}`,
  );
  console.log(
    `closed by the server: ${stats.closedByServer.length} (lifetime p50 ${ms(pct(stats.closedByServer, 50))}, p95 ${ms(pct(stats.closedByServer, 95))}, max ${ms(pct(stats.closedByServer, 100))}); still open at the end: ${stats.stillOpenAtEnd}`,
  );
  console.log(
    `/health during the flood: ${probes.length} probes, ${ok.length} answered 200 (p50 ${ms(pct(latencies, 50))}, p95 ${ms(pct(latencies, 95))}, max ${ms(pct(latencies, 100))}), ${failed.length} failed${failed.length ? `: ${JSON.stringify(failed.slice(0, 3))}` : ''}`,
  );
  const after = await probe(base).catch((err: unknown) => ({ status: 0, ms: NaN, error: String(err) }));
  console.log(`/health after: ${after.status} in ${ms(after.ms)}`);
  await own?.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
