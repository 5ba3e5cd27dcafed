/**
 * CodeExec's sandbox, for real (Linux namespaces, rlimits; run as root in CI): hostile scripts are
 * contained and reported with a clear error — an endless loop, fork bombs, a 2 GB allocation,
 * 100 MB of output, connections out (loopback included), writes outside the scratch dir, the
 * worker's secrets — and main() with arguments works in Python and JavaScript. A machine where
 * the sandbox cannot be set up refuses to run the script (fail closed).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeExec } from '../../src/io/tools/codeExec';
import { AppError } from '../../src/errors';

// A user of its own, so that counting its processes is not disturbed by other tests' scripts.
const SANDBOX_UID = 60001;
if (process.getuid?.() !== 0) console.warn('[codeExec] the fails-closed test skipped: simulating a machine without namespaces needs root');
const ENV = { CODE_EXEC_TIMEOUT_S: '3', CODE_EXEC_UID: String(SANDBOX_UID), CODE_EXEC_GID: String(SANDBOX_UID) };

async function exec(params: Record<string, unknown>, args: Record<string, unknown> = {}, env: Record<string, string> = ENV) {
  return codeExec({ params, args, env, signal: new AbortController().signal, tenantId: 't' });
}

/** The AppError a run fails with (and how long it took). */
async function failure(params: Record<string, unknown>, args: Record<string, unknown> = {}): Promise<{ code: string; message: string; ms: number }> {
  const started = Date.now();
  try {
    await exec(params, args);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, message: (err as AppError).message, ms: Date.now() - started };
  }
  throw new Error('the script was expected to fail');
}

/**
 * Processes of the sandbox user started by this test file right now: descendants of this process
 * (other test files run CodeExec at the same time), plus any orphan the host's init adopted (a
 * script's process that escaped its namespace counts, whoever started it); not bwrap's monitor,
 * which waits outside the script's user namespace.
 */
function sandboxProcesses(): number {
  const parents = new Map<number, number>();
  const sandboxed: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      parents.set(Number(pid), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      if (new RegExp(`^Uid:\\s+${SANDBOX_UID}\\s`, 'm').test(status) && !/^Name:\s+bwrap$/m.test(status)) sandboxed.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    if (parents.get(pid) === 1) return true;
    for (let p = parents.get(pid), hops = 0; p && hops < 64; p = parents.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  return sandboxed.filter(ours).length;
}

const py = (script: string, extra: Record<string, unknown> = {}) => ({ lang: 'python', script, outputs: {}, ...extra });
const js = (script: string, extra: Record<string, unknown> = {}) => ({ lang: 'javascript', script, outputs: {}, ...extra });

describe('CodeExec runs main() in the sandbox', () => {
  const outputs = { total: { type: 'Number', value: '' }, label: { type: 'String', value: '' } };

  it('Python: keyword arguments in, a dict out, mapped to the declared outputs', async () => {
    const script = 'def main(a: int, b: int, name: str) -> dict:\n    print("working")\n    return {"total": a + b, "label": f"{name}: {a + b}"}\n';
    const r = await exec(py(script, { outputs }), { arguments: { a: 2, b: 40, name: 'sum' } });
    expect(r.outputs).toMatchObject({ total: 42, label: 'sum: 42', actual_type: 'Object', raw_result: { total: 42, label: 'sum: 42' } });
    expect(r.outputs.content).toBe('{\n  "label": "sum: 42",\n  "total": 42\n}');
    expect(r.outputs._ERROR).toBeUndefined();
    expect(r.text).toContain('stdout:\nworking');
  });

  it('JavaScript: one argument object in (async main, module.exports), a dict out', async () => {
    const script = 'async function main({ a, b, name }) {\n  return { total: a + b, label: `${name}: ${a + b}` };\n}\nmodule.exports = { main };\n';
    const r = await exec(js(script, { outputs }), { arguments: { a: 2, b: 40, name: 'sum' } });
    expect(r.outputs).toMatchObject({ total: 42, label: 'sum: 42', actual_type: 'Object' });
  });

  it("one declared output takes the whole value (RAGFlow's current contract) and its type is checked", async () => {
    const r = await exec(py('def main(text):\n    return text.upper()\n', { outputs: { md_table: { type: 'String', value: '' } } }), {
      arguments: { text: 'abc' },
    });
    expect(r.outputs).toMatchObject({ md_table: 'ABC', content: 'ABC', actual_type: 'String' });
    const wrong = await exec(py('def main():\n    return [1, 2]\n', { outputs: { md_table: { type: 'String', value: '' } } }));
    expect(wrong.outputs._ERROR).toMatch(/md_table.*expected type String.*got Array<Number>/);
  });

  it("a script's exception comes back as the node's error with the traceback tail, not retried", async () => {
    const f = await failure(py('def helper(x):\n    return 1 / x\n\ndef main():\n    return helper(0)\n'));
    expect(f.code).toBe('TOOL_BAD_REQUEST');
    expect(f.message).toMatch(/^CodeExec: the script failed:/);
    expect(f.message).toContain('File "/scratch/main.py", line 2, in helper');
    expect(f.message).toMatch(/ZeroDivisionError: division by zero$/);
    const syntax = await failure(js('function main() { return ( }'));
    expect(syntax.message).toMatch(/SyntaxError: Unexpected token/);
  });
});

describe('CodeExec contains hostile scripts', () => {
  it('stops an endless loop at the time limit', async () => {
    const f = await failure(py('def main():\n    while True:\n        pass\n'));
    expect(f).toMatchObject({ code: 'TOOL_BAD_REQUEST', message: 'CodeExec: the script ran longer than 3 s and was stopped' });
    expect(f.ms).toBeLessThan(6000);
  });

  it('contains a fork bomb: at most the process limit at once, nothing left afterwards, the host unharmed', async () => {
    expect(sandboxProcesses()).toBe(0);
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, sandboxProcesses())), 100);
    const bomb =
      'import os, time\n\ndef main():\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            time.sleep(0.001)\n';
    const f = await failure(py(bomb)).finally(() => clearInterval(poll));
    expect(f.message).toBe('CodeExec: the script ran longer than 3 s and was stopped');
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(32);
    // The kernel kills what was left with the namespace's PID 1; give it a moment to reap.
    await new Promise((r) => setTimeout(r, 300));
    expect(sandboxProcesses()).toBe(0);
    expect(execFileSync('sh', ['-c', 'echo still-forking'], { encoding: 'utf8' }).trim()).toBe('still-forking');

    // A bomb that does not catch the error ends at the first fork refused, and says so.
    const plain = await failure(py('import os\n\ndef main():\n    while True:\n        os.fork()\n'));
    expect(plain.message).toMatch(/^CodeExec: the script reached the limit of 32 processes:/);
    expect(plain.message).toContain('BlockingIOError');
    await new Promise((r) => setTimeout(r, 300));
    expect(sandboxProcesses()).toBe(0);
  });

  it('refuses a 2 GB allocation cleanly (memory limit), in Python and JavaScript', async () => {
    const p = await failure(py('def main():\n    data = bytearray(2 * 1024 ** 3)\n    return len(data)\n'));
    expect(p.message).toMatch(/^CodeExec: the script ran out of memory \(limit 256 MB\):/);
    expect(p.message).toMatch(/MemoryError$/);
    const j = await failure(js('function main() { return Buffer.alloc(2 * 1024 ** 3).length; }'));
    expect(j.message).toMatch(/^CodeExec: the script ran out of memory \(limit 256 MB\):\nRangeError: Array buffer allocation failed/);
  });

  it('caps 100 MB of output: stops the script at 1 MB and reports the truncation', async () => {
    const f = await failure(
      py('import sys\n\ndef main():\n    line = "x" * 1023 + "\\n"\n    for _ in range(100 * 1024):\n        sys.stdout.write(line)\n    return "done"\n'),
    );
    expect(f.message).toBe('CodeExec: the script wrote more than 1 MB of output and was stopped (output truncated)');
    expect(f.ms).toBeLessThan(3000);
  });

  describe('network', () => {
    let server: net.Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = net.createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("blocks connections out: the host's loopback server and a public address are unreachable", async () => {
      const script = [
        'import socket',
        '',
        'def attempt(host, port):',
        '    try:',
        '        with socket.create_connection((host, port), timeout=2) as s:',
        '            return "connected: " + s.recv(100).decode()',
        '    except OSError as e:',
        '        return "refused: " + str(e)',
        '',
        'def main(port):',
        '    return {"local": attempt("127.0.0.1", port), "public": attempt("1.1.1.1", 80)}',
      ].join('\n');
      const r = await exec(py(script, { outputs: { local: { type: 'String' }, public: { type: 'String' } } }), { arguments: { port } });
      expect(r.outputs.local).toMatch(/^refused: /);
      expect(r.outputs.public).toMatch(/^refused: .*Network is unreachable/);
      const viaJs = await exec(
        js(
          `async function main() { try { await fetch('http://127.0.0.1:${port}/'); return 'connected'; } catch (e) { return 'refused: ' + (e.cause?.code ?? e.message); } }`,
        ),
      );
      expect(viaJs.outputs.content).toMatch(/^refused: /);
      expect(connections).toBe(0);
    });
  });

  it('refuses writes outside the scratch dir (/tmp, the project) and leaves nothing behind', async () => {
    // A temp dir of this test's own: other test files run CodeExec at the same time in the shared one.
    const sharedTmp = process.env.TMPDIR;
    const ownTmp = mkdtempSync(path.join(os.tmpdir(), 'codeexec-test-tmp-'));
    process.env.TMPDIR = ownTmp;
    try {
      await writesOutsideScratch();
      expect(readdirSync(ownTmp)).toEqual([]);
    } finally {
      if (sharedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = sharedTmp;
      rmSync(ownTmp, { recursive: true, force: true });
    }
  });

  async function writesOutsideScratch() {
    const tag = `codeexec-escape-${process.pid}-${Date.now()}`;
    const targets = [path.join(os.tmpdir(), `${tag}.txt`), path.join(process.cwd(), `${tag}.txt`), '/etc/passwd'];
    const script = [
      'import os',
      '',
      'def main(targets):',
      '    out = {}',
      '    for t in targets + ["/scratch/ok.txt"]:',
      '        try:',
      '            with open(t, "a") as f:',
      '                f.write("escaped")',
      '            out[t] = "written"',
      '        except OSError as e:',
      '            out[t] = "refused: " + e.strerror',
      '    out["cwd"] = os.getcwd()',
      '    return out',
    ].join('\n');
    const r = await exec(py(script), { arguments: { targets } });
    const seen = r.outputs.raw_result as Record<string, string>;
    for (const t of targets) expect(seen[t]).toMatch(/^refused: (No such file or directory|Read-only file system|Permission denied)$/);
    expect(seen['/scratch/ok.txt']).toBe('written');
    expect(seen.cwd).toBe('/scratch');
    for (const t of targets.slice(0, 2)) expect(existsSync(t)).toBe(false);
    expect(readFileSync('/etc/passwd', 'utf8')).not.toContain('escaped');
  }

  it("sees neither the worker's environment nor the project's files", async () => {
    process.env.CODE_EXEC_TEST_SECRET = 'do-not-leak-4711';
    try {
      const r = await exec(
        py('import os\n\ndef main(project):\n    return {"env": dict(os.environ), "project": os.path.exists(project), "root": sorted(os.listdir("/"))}\n'),
        { arguments: { project: process.cwd() } },
      );
      const seen = r.outputs.raw_result as { env: Record<string, string>; project: boolean; root: string[] };
      expect(JSON.stringify(seen.env)).not.toContain('do-not-leak-4711');
      expect(Object.keys(seen.env).sort()).toEqual(['HOME', 'LANG', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'TMPDIR']);
      expect(seen.project).toBe(false);
      expect(seen.root).not.toContain('work');
      expect(seen.root).not.toContain('root');
    } finally {
      delete process.env.CODE_EXEC_TEST_SECRET;
    }
  });
});

describe('CodeExec without a sandbox', () => {
  it.skipIf(process.getuid?.() !== 0)('fails closed where namespaces cannot be set up: TOOL_UNAVAILABLE, and the script never runs', async () => {
    // A machine without namespaces, simulated: in a private mount namespace, `unshare` is a
    // program that fails the way the real one does when the kernel refuses.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'codeexec-nons-'));
    const fake = path.join(dir, 'unshare');
    const marker = path.join(dir, 'ran.txt');
    writeFileSync(fake, '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n', { mode: 0o755 });
    const probe = path.join(dir, 'probe.ts');
    writeFileSync(
      probe,
      `import { codeExec } from ${JSON.stringify(path.resolve('src/io/tools/codeExec'))};\n` +
        `codeExec({ params: { script: 'def main():\\n    open(${JSON.stringify(marker)}, "w").write("x")\\n' }, args: {}, env: {}, signal: new AbortController().signal, tenantId: 't' })\n` +
        `  .then(() => console.log(JSON.stringify({ ok: true })), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));\n`,
    );
    try {
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(
          'unshare',
          ['--mount', '--propagation', 'private', 'sh', '-c', `mount --bind ${fake} /usr/bin/unshare && exec "$0" --import tsx ${probe}`, process.execPath],
          { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let text = '';
        child.stdout.on('data', (c: Buffer) => (text += c.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(text));
      });
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as { code?: string; message?: string };
      expect(r.code).toBe('TOOL_UNAVAILABLE');
      expect(r.message).toMatch(
        /^CodeExec: the sandbox could not be set up on this machine, so the script did not run \(unshare: unshare failed: Operation not permitted\)/,
      );
      expect(r.message).toContain('CODE_EXEC_UNSAFE_NO_SANDBOX=1');
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
