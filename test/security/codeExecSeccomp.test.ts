/**
 * CodeExec's seccomp filter, evaluated by a small classic-BPF interpreter (the instructions the
 * filter uses) for both architectures it supports — arm64 included, which this machine cannot run.
 */
import { describe, expect, it } from 'vitest';
import { seccompFilter } from '../../src/io/tools/codeExec/seccomp';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;
const ENOSYS = 0x00050000 | 38;
const KILL_PROCESS = 0x80000000;
const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 };

/** What the kernel would do with syscall `nr` made under `audit` arch with `args`. */
function verdict(filter: Buffer, audit: number, nr: number, args: number[] = []): number {
  const data = Buffer.alloc(64); // struct seccomp_data
  data.writeInt32LE(nr | 0, 0);
  data.writeUInt32LE(audit, 4);
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt(a), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < filter.length / 8; pc++) {
    const [code, jt, jf, k] = [filter.readUInt16LE(pc * 8), filter.readUInt8(pc * 8 + 2), filter.readUInt8(pc * 8 + 3), filter.readUInt32LE(pc * 8 + 4)];
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected BPF instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error('the filter fell off its end');
}

const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNET = 0x40000000;
const SIGCHLD = 17;
const THREAD_FLAGS = 0x3d0f00; // what glibc's pthread_create passes

describe('the seccomp filter on x86_64', () => {
  const f = seccompFilter('x64');
  const on = (nr: number, args: number[] = []) => verdict(f, ARCH.x64, nr, args);

  it('refuses namespaces, mounts, tracing, the keyring, bpf, perf and kernel loading with EPERM', () => {
    // unshare, setns, mount, umount2, pivot_root, ptrace, process_vm_readv, keyctl, add_key, bpf, perf_event_open, kexec_load, finit_module, reboot, swapon, io_uring_setup
    for (const nr of [272, 308, 165, 166, 155, 101, 310, 250, 248, 321, 298, 246, 313, 169, 167, 425]) expect(on(nr), `syscall ${nr}`).toBe(EPERM);
  });

  it('lets clone make processes and threads but not namespaces; clone3 is ENOSYS so libc falls back to clone', () => {
    expect(on(56, [SIGCHLD])).toBe(ALLOW);
    expect(on(56, [THREAD_FLAGS])).toBe(ALLOW);
    expect(on(56, [SIGCHLD | CLONE_NEWUSER])).toBe(EPERM);
    expect(on(56, [CLONE_NEWNET])).toBe(EPERM);
    expect(on(435)).toBe(ENOSYS);
  });

  it('allows ordinary calls (read, write, openat, mmap, execve, exit_group)', () => {
    for (const nr of [0, 1, 257, 9, 59, 231]) expect(on(nr), `syscall ${nr}`).toBe(ALLOW);
  });

  it('kills a call through another architecture (32-bit int 0x80) and refuses the x32 ABI', () => {
    expect(verdict(f, ARCH.i386, 0)).toBe(KILL_PROCESS);
    expect(on(0x40000000 | 272)).toBe(EPERM);
    expect(on(0x40000000 | 0)).toBe(EPERM);
  });
});

describe('the seccomp filter on arm64', () => {
  const f = seccompFilter('arm64');
  const on = (nr: number, args: number[] = []) => verdict(f, ARCH.arm64, nr, args);

  it("uses arm64's own numbers: unshare, setns, mount, ptrace, keyctl and bpf refused, read and write allowed", () => {
    for (const nr of [97, 268, 40, 117, 219, 280]) expect(on(nr), `syscall ${nr}`).toBe(EPERM);
    expect(on(63)).toBe(ALLOW);
    expect(on(64)).toBe(ALLOW);
    expect(on(220, [SIGCHLD])).toBe(ALLOW);
    expect(on(220, [CLONE_NEWUSER])).toBe(EPERM);
    expect(on(435)).toBe(ENOSYS);
    expect(verdict(f, ARCH.x64, 0)).toBe(KILL_PROCESS);
  });
});

it('refuses to make a filter for an architecture it does not know (CodeExec then fails closed)', () => {
  expect(() => seccompFilter('riscv64')).toThrow(expect.objectContaining({ code: 'TOOL_UNAVAILABLE' }));
});
