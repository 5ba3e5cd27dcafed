/**
 * The seccomp filter of a CodeExec run: a classic-BPF program (an array of 8-byte `sock_filter`
 * structs) that bubblewrap loads with `--seccomp FD` just before it starts the interpreter. It is
 * a deny-list: what a script computing things never needs and what an escape would — new
 * namespaces (nested `unshare -r`), mounts, tracing other processes, the kernel keyring, BPF,
 * perf, loading kernels or modules, rebooting, swap, io_uring — fails with EPERM; everything
 * else is allowed. Assembled here rather than compiled so that the machine needs no libseccomp
 * tools and no compiler.
 */
import { AppError } from '../../../errors';

// linux/filter.h, linux/seccomp.h, linux/audit.h, linux/sched.h
const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;
/** `struct seccomp_data`: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of args[0] (little-endian): clone's flags. */
const OFFSET_ARG0_LOW = 16;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** x86_64's x32 ABI numbers have this bit: none of them is wanted. */
const X32_SYSCALL_BIT = 0x40000000;

type Denied =
  | 'unshare'
  | 'setns'
  | 'mount'
  | 'umount2'
  | 'pivot_root'
  | 'chroot'
  | 'open_tree'
  | 'move_mount'
  | 'fsopen'
  | 'fsconfig'
  | 'fsmount'
  | 'fspick'
  | 'mount_setattr'
  | 'ptrace'
  | 'process_vm_readv'
  | 'process_vm_writev'
  | 'pidfd_getfd'
  | 'keyctl'
  | 'add_key'
  | 'request_key'
  | 'bpf'
  | 'perf_event_open'
  | 'userfaultfd'
  | 'io_uring_setup'
  | 'io_uring_enter'
  | 'io_uring_register'
  | 'kexec_load'
  | 'kexec_file_load'
  | 'init_module'
  | 'finit_module'
  | 'delete_module'
  | 'reboot'
  | 'swapon'
  | 'swapoff'
  | 'acct'
  | 'syslog'
  | 'quotactl'
  | 'vhangup'
  | 'open_by_handle_at'
  | 'name_to_handle_at'
  | 'lookup_dcookie'
  | 'settimeofday'
  | 'clock_settime'
  | 'adjtimex'
  | 'clock_adjtime';

interface Arch {
  audit: number;
  clone: number;
  clone3: number;
  denied: Record<Denied, number>;
}

/** Syscall numbers: arch/x86/entry/syscalls/syscall_64.tbl and the generic table aarch64 uses. */
const ARCHES: Record<string, Arch> = {
  x64: {
    audit: 0xc000003e,
    clone: 56,
    clone3: 435,
    denied: {
      unshare: 272,
      setns: 308,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      pidfd_getfd: 438,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      reboot: 169,
      swapon: 167,
      swapoff: 168,
      acct: 163,
      syslog: 103,
      quotactl: 179,
      vhangup: 153,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      lookup_dcookie: 212,
      settimeofday: 164,
      clock_settime: 227,
      adjtimex: 159,
      clock_adjtime: 305,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    clone: 220,
    clone3: 435,
    denied: {
      unshare: 97,
      setns: 268,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      pidfd_getfd: 438,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      reboot: 142,
      swapon: 224,
      swapoff: 225,
      acct: 89,
      syslog: 116,
      quotactl: 60,
      vhangup: 58,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      lookup_dcookie: 18,
      settimeofday: 170,
      clock_settime: 112,
      adjtimex: 171,
      clock_adjtime: 266,
    },
  },
};

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for `arch` (Node's `process.arch`) as the bytes `bwrap --seccomp` reads. */
export function seccompFilter(arch: string = process.arch): Buffer {
  const a = ARCHES[arch];
  if (!a)
    throw new AppError(
      'TOOL_UNAVAILABLE',
      `CodeExec: no seccomp filter for the ${arch} architecture (x64 and arm64 are supported), so scripts do not run here`,
    );
  const deny = (errno: number): Insn => [BPF_RET_K, 0, 0, RET_ERRNO | errno];
  const prog: Insn[] = [
    // A call made through another architecture's table (int 0x80 on x86_64) would dodge the numbers below.
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARCH],
    [BPF_JEQ_K, 1, 0, a.audit],
    [BPF_RET_K, 0, 0, RET_KILL_PROCESS],
    [BPF_LD_W_ABS, 0, 0, OFFSET_NR],
  ];
  if (arch === 'x64') prog.push([BPF_JGE_K, 0, 1, X32_SYSCALL_BIT], deny(EPERM));
  for (const nr of Object.values(a.denied)) prog.push([BPF_JEQ_K, 0, 1, nr], deny(EPERM));
  // clone3 passes its flags in memory, where a filter cannot look: ENOSYS makes libc fall back to clone.
  prog.push([BPF_JEQ_K, 0, 1, a.clone3], deny(ENOSYS));
  // clone is fine (threads, fork) unless it asks for a namespace.
  prog.push([BPF_JEQ_K, 0, 3, a.clone], [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW], [BPF_JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS], deny(EPERM));
  prog.push([BPF_RET_K, 0, 0, RET_ALLOW]);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
