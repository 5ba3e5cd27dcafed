/**
 * CodeExec's sandbox beyond the worker's reach (run as root in CI, like codeExec.test.ts): it dies
 * with the worker however the worker dies, its wall limit holds when the worker cannot enforce it,
 * a seccomp filter refuses namespaces, tracing and the keyring, and it shows /etc files of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeExec } from '../../src/io/tools/codeExec';

const ENV = { CODE_EXEC_TIMEOUT_S: '5', CODE_EXEC_UID: '60003', CODE_EXEC_GID: '60003' };
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn('[codeExec containment] skipped: these tests set up namespaces and a private /etc, which needs root');
const dir = mkdtempSync(path.join(os.tmpdir(), 'codeexec-containment-'));
const workers: ChildProcess[] = [];
let workerFiles = 0;

afterAll(() => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function run(script: string): Promise<Record<string, unknown>> {
  const r = await codeExec({ params: { lang: 'python', script, outputs: {} }, args: {}, env: ENV, signal: new AbortController().signal, tenantId: 't' });
  return r.outputs.raw_result as Record<string, unknown>;
}

/** Host processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

/** Polls (every 100 ms, at most `limitMs`) until `done()`; returns whether it got there. */
async function eventually(done: () => boolean, limitMs: number): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 100) {
    if (done()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return done();
}

/**
 * A worker of its own: a Node process that runs CodeExec (the same launcher the real worker uses)
 * with a script starting `sleep <marker>`, resolved once that sleep is running in the sandbox.
 */
async function workerSleepingIn(marker: string, timeoutS: number): Promise<ChildProcess> {
  // Named apart from the marker: the worker's own command line must not match it.
  const probe = path.join(dir, `worker-${++workerFiles}.ts`);
  const script = `import subprocess\n\ndef main():\n    subprocess.run(["sleep", "${marker}"])\n`;
  writeFileSync(
    probe,
    `import { codeExec } from ${JSON.stringify(path.resolve('src/io/tools/codeExec'))};\n` +
      `codeExec({ params: { script: ${JSON.stringify(script)} }, args: {}, env: ${JSON.stringify({ ...ENV, CODE_EXEC_TIMEOUT_S: String(timeoutS) })}, signal: new AbortController().signal, tenantId: 't' })\n` +
      `  .then(() => console.log('done'), (e) => console.log(e.code, e.message));\n`,
  );
  const worker = spawn(process.execPath, ['--import', 'tsx', probe], { cwd: process.cwd(), stdio: 'ignore' });
  workers.push(worker);
  const started = await eventually(() => processesWith(marker).length > 0, 30_000);
  expect(started, 'the sandboxed sleep started').toBe(true);
  return worker;
}

let markers = 0;
/** A `sleep` argument no other process has: 300 s and a unique fraction. */
const uniqueSleep = () => `300.${process.pid}${++markers}`;

describe.skipIf(!asRoot)('the sandbox dies with its worker', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)('a worker ended by %s takes its running script with it', async (sig) => {
    const marker = uniqueSleep();
    const worker = await workerSleepingIn(marker, 60);
    worker.kill(sig);
    // Well inside the 60 s limit: only the worker's death can have ended it.
    expect(await eventually(() => processesWith(marker).length === 0, 5000), `sandbox processes left: ${processesWith(marker).join(', ')}`).toBe(true);
  });

  it('a worker that stops responding still gets its script stopped at the wall limit (kernel side)', async () => {
    const marker = uniqueSleep();
    const worker = await workerSleepingIn(marker, 4);
    // Stopped, not dead: no pdeathsig, and its own timer cannot fire.
    worker.kill('SIGSTOP');
    try {
      expect(await eventually(() => processesWith(marker).length === 0, 15_000), `sandbox processes left: ${processesWith(marker).join(', ')}`).toBe(true);
    } finally {
      worker.kill('SIGKILL');
    }
  });
});

describe.skipIf(!asRoot)('the seccomp filter', () => {
  it('refuses new namespaces: a nested `unshare -r` and unshare(CLONE_NEWUSER) fail with EPERM', async () => {
    const script = [
      'import ctypes, os, subprocess',
      '',
      'def main():',
      '    libc = ctypes.CDLL(None, use_errno=True)',
      '    rc = libc.unshare(0x10000000)',
      '    nested = subprocess.run(["unshare", "-r", "id", "-u"], capture_output=True, text=True)',
      '    return {"unshare": [rc, os.strerror(ctypes.get_errno())], "nested": [nested.returncode, nested.stdout + nested.stderr]}',
    ].join('\n');
    const r = await run(script);
    expect(r.unshare).toEqual([-1, 'Operation not permitted']);
    expect(r.nested).toEqual([1, 'unshare: unshare failed: Operation not permitted\n']);
  });

  it('refuses ptrace, the keyring and mounts, and keeps threads and subprocesses working', async () => {
    const script = [
      'import ctypes, os, platform, subprocess, threading',
      '',
      'KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]',
      '',
      'def main():',
      '    libc = ctypes.CDLL(None, use_errno=True)',
      '    def call(f, *a):',
      '        rc = f(*a)',
      '        return [rc, os.strerror(ctypes.get_errno()) if rc == -1 else ""]',
      '    out = {',
      '        "ptrace": call(libc.ptrace, 0, 0, 0, 0),',
      '        "keyctl": call(libc.syscall, KEYCTL, 0, -3, 0),',
      '        "mount": call(libc.mount, b"none", b"/scratch", b"tmpfs", 0, None),',
      '    }',
      '    t = threading.Thread(target=lambda: out.update(thread="ran"))',
      '    t.start(); t.join()',
      '    out["subprocess"] = subprocess.run(["echo", "child"], capture_output=True, text=True).stdout',
      '    out["status"] = [l for l in open("/proc/self/status").read().splitlines() if l.startswith(("Seccomp:", "NoNewPrivs:"))]',
      '    return out',
    ].join('\n');
    const r = await run(script);
    expect(r).toMatchObject({
      ptrace: [-1, 'Operation not permitted'],
      keyctl: [-1, 'Operation not permitted'],
      mount: [-1, 'Operation not permitted'],
      thread: 'ran',
      subprocess: 'child\n',
      status: ['NoNewPrivs:\t1', 'Seccomp:\t2'],
    });
  });
});

describe.skipIf(!asRoot)("the sandbox's own /etc", () => {
  it('shows only the sandbox user, localhost, its own host name, and no host configuration beyond what programs need to start', async () => {
    const r = await run(
      'import os, socket\n\ndef main():\n    return {f: open("/etc/" + f).read() for f in ("passwd", "group", "hosts")} | {"etc": sorted(os.listdir("/etc")), "hostname": socket.gethostname()}\n',
    );
    expect(r.hostname).toBe('sandbox');
    expect(r.passwd).toBe('sandbox:x:60003:60003:sandbox:/scratch:/usr/sbin/nologin\n');
    expect(r.group).toBe('sandbox:x:60003:\n');
    expect(r.hosts).toBe('127.0.0.1\tlocalhost\n::1\tlocalhost\n');
    for (const f of r.etc as string[])
      expect(['alternatives', 'group', 'hosts', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'nsswitch.conf', 'passwd']).toContain(f);
  });
});

describe.skipIf(!asRoot)('CodeExec without a working bubblewrap fails closed', () => {
  const failure = (env: Record<string, string>) =>
    codeExec({
      params: { script: 'def main():\n    return "ran"\n' },
      args: {},
      env: { ...ENV, ...env },
      signal: new AbortController().signal,
      tenantId: 't',
    }).then(
      () => ({ code: 'none', message: 'the script ran' }),
      (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
    );

  it('bwrap not installed: TOOL_UNAVAILABLE saying what to install, and the script never runs', async () => {
    expect(await failure({ CODE_EXEC_BWRAP: path.join(dir, 'missing', 'bwrap') })).toEqual({
      code: 'TOOL_UNAVAILABLE',
      message: `CodeExec: bubblewrap (CODE_EXEC_BWRAP) is not available at ${path.join(dir, 'missing', 'bwrap')}, and scripts never run without the sandbox it completes (Debian: apt-get install bubblewrap)`,
    });
  });

  it('bwrap refused by the kernel: TOOL_UNAVAILABLE with its message, and the script never runs', async () => {
    // Simulated: a `bwrap` that fails the way the real one does without user namespaces.
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    chmodSync(dir, 0o755); // the sandbox user starts it
    const fake = path.join(dir, 'bin', 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const f = await failure({ CODE_EXEC_BWRAP: fake });
    expect(f.code).toBe('TOOL_UNAVAILABLE');
    expect(f.message).toMatch(
      /^CodeExec: the sandbox could not be set up on this machine, so the script did not run \(bwrap cannot start a sandbox here: bwrap: No permissions to creating new namespace\)/,
    );
  });
});
