/**
 * The command line that starts a script in the sandbox: util-linux, coreutils, a POSIX shell and
 * bubblewrap (Debian's `bubblewrap`; no Docker):
 *
 * - `setpriv --pdeathsig KILL` makes the worker's death (SIGKILL included) kill `unshare`, whose
 *   `--kill-child` kills the namespace's PID 1, whose death makes the kernel kill everything else
 *   in the namespace: no script outlives its worker.
 * - `unshare` gives the run new network, mount, PID, IPC and UTS namespaces (plus a user
 *   namespace when the worker is not root). A new network namespace has only a loopback device,
 *   down: nothing can be reached, not even the host's 127.0.0.1.
 * - `SETUP` (below) builds a fresh root in a tmpfs on the host's empty scratch directory: the
 *   system's /usr, /bin, /lib* and a few /etc files bound read-only, its own /etc/passwd, group
 *   (one `sandbox` user) and hosts (localhost only), a minimal /dev, a new /proc (only the
 *   sandbox's processes), and a size-limited tmpfs at /scratch, the only writable place. It then
 *   pivots into it and detaches the host's tree: project files, /tmp, /home and /root are not
 *   there at all. The tmpfs lives in the run's private mount namespace, so it and everything
 *   written to it disappear with the run.
 * - The shell stays as PID 1 of the namespace: when the script's process ends, the shell ends,
 *   and the kernel kills whatever the script left behind. `timeout -s KILL` under it stops the
 *   script a little after the wall limit even if the worker cannot (stopped, stuck).
 * - The script runs as an unprivileged user (root workers: `CODE_EXEC_UID`, by default nobody)
 *   with no capabilities and `no_new_privs`, started by bwrap in a user namespace of its own (so
 *   RLIMIT_NPROC, counted per user and namespace, counts only this run's processes) that cannot
 *   make further ones, with the seccomp filter of seccomp.ts. `prlimit` sets address space,
 *   processes, CPU time, file size and open files.
 *
 * Before starting the script the shell checks that bwrap works here and writes READY to fd 3: a
 * run whose fd 3 lacks it never got a sandbox, and is reported as an infrastructure failure,
 * never run without one.
 */
import path from 'node:path';
import { AppError } from '../../../errors';
import { NODE_RESERVE_MB, type SandboxLimits } from './limits';
import { seccompFilter } from './seccomp';
import { NODE_WRAPPER, PYTHON_WRAPPER } from './wrappers';

export type Language = 'python' | 'javascript';

/**
 * Arguments: root dir, mode (root|userns), uid, gid, scratch MB, extra read-only dirs (":"),
 * kernel-side wall limit (s), the seccomp filter (base64), bwrap's path, then the command.
 */
const SETUP = String.raw`
set -euf
R=$1 MODE=$2 U=$3 G=$4 SCRATCH_MB=$5 BINDS=$6 WALL_S=$7 SECCOMP=$8 BWRAP_BIN=$9
shift 9
ro() { mount --bind -o ro,nosuid,nodev "$1" "$2"; }
mount -t tmpfs -o size=4m,mode=755,nosuid,nodev codeexec-root "$R"
cd "$R"
mkdir etc dev proc scratch tmp .oldroot
# bwrap reads the filter from fd 4; the file itself is gone before the script starts.
printf '%s' "$SECCOMP" | base64 -d > .seccomp
exec 4< .seccomp
rm .seccomp
for d in usr bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$d"
  elif [ -d "/$d" ]; then mkdir "$d"; ro "/$d" "$d"; fi
done
for f in ld.so.cache ld.so.conf ld.so.conf.d alternatives localtime nsswitch.conf; do
  if [ -d "/etc/$f" ]; then mkdir "etc/$f"; ro "/etc/$f" "etc/$f"
  elif [ -f "/etc/$f" ]; then : > "etc/$f"; ro "/etc/$f" "etc/$f"; fi
done
# Users and hosts of its own: the host's accounts and network names are none of the script's business.
SU=$U SG=$G
if [ "$MODE" = userns ]; then SU=1000 SG=1000; fi
printf 'sandbox:x:%s:%s:sandbox:/scratch:/usr/sbin/nologin\n' "$SU" "$SG" > etc/passwd
printf 'sandbox:x:%s:\n' "$SG" > etc/group
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' > etc/hosts
IFS=:
for p in $BINDS; do
  if [ -n "$p" ]; then mkdir -p ".$p"; ro "$p" ".$p"; fi
done
unset IFS
mount -t tmpfs -o size=64k,mode=755,nosuid,noexec codeexec-dev dev
for n in null zero full random urandom; do : > "dev/$n"; mount --bind "/dev/$n" "dev/$n"; done
ln -s /proc/self/fd dev/fd
ln -s /proc/self/fd/0 dev/stdin
ln -s /proc/self/fd/1 dev/stdout
ln -s /proc/self/fd/2 dev/stderr
mount -o remount,bind,ro,nosuid,noexec dev
mount -t proc -o nosuid,nodev,noexec proc proc
mount -t tmpfs -o "size=$SCRATCH_MB"m,mode=700,nosuid,nodev codeexec-scratch scratch
if [ "$MODE" = root ]; then chown "$U:$G" scratch; fi
pivot_root . .oldroot
cd /
umount -l /.oldroot
rmdir /.oldroot
mount -o remount,bind,ro,nosuid,nodev /
cd /scratch
# bwrap, last: a user namespace of the script's own (RLIMIT_NPROC counts per user and namespace),
# no further ones, the seccomp filter, a session and host name of its own, killed if its parent dies.
BWRAP="$BWRAP_BIN --unshare-user --disable-userns --unshare-uts --hostname sandbox --die-with-parent --new-session --dev-bind / / --chdir /scratch"
if [ "$MODE" = root ]; then
  DROP="setpriv --reuid=$U --regid=$G --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --"
else
  # Namespace root: bwrap runs the script as an ordinary user (mapped to the worker's) without capabilities.
  DROP="" BWRAP="$BWRAP --uid $SU --gid $SG --cap-drop ALL"
fi
if ! PROBE=$($DROP $BWRAP -- true 2>&1 </dev/null); then
  echo "bwrap cannot start a sandbox here: $PROBE" >&2
  exit 1
fi
# The wall limit enforced from inside too, so that it holds even when the worker cannot enforce
# it; the worker's own (shorter) timer normally fires first and reports it.
set -- timeout -s KILL "$WALL_S" $DROP $BWRAP --seccomp 4 -- "$@"
echo READY >&3
set +e
"$@"
exit $?
`;

/** The kernel-side wall limit is the worker's plus this: the worker's timer normally fires first. */
const KERNEL_WALL_SLACK_S = 2;

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

function underSystem(p: string): boolean {
  return SYSTEM_DIRS.some((d) => p === d || p.startsWith(`${d}/`));
}

/**
 * Directories to show read-only besides the system ones: the install prefix of a program (the
 * interpreter, bwrap) that lives elsewhere (a venv, /opt, a version manager), as configured and
 * as resolved.
 */
export function extraReadOnlyDirs(programs: string[]): string[] {
  const dirs = programs.map((p) => path.dirname(path.dirname(p))).filter((d) => d !== '/' && !underSystem(d));
  const unique = [...new Set(dirs)].sort((a, b) => a.length - b.length);
  // A directory inside one already shown needs no bind of its own (and could not get one: ro).
  return unique.filter((d, i) => !unique.slice(0, i).some((outer) => d.startsWith(`${outer}/`)));
}

/** The interpreter command: limits, a clean environment, the wrapper. */
export function interpreterCommand(lang: Language, interpreter: string, limits: SandboxLimits, scratch: string): string[] {
  const asMb = lang === 'javascript' ? limits.memoryMb + NODE_RESERVE_MB : limits.memoryMb;
  const cpu = limits.timeoutS;
  const rlimits = [
    `--as=${asMb * 1024 * 1024}`,
    `--nproc=${limits.maxProcesses}`,
    // SIGXCPU at the soft limit, SIGKILL a second later for a script that ignores it.
    `--cpu=${cpu}:${cpu + 1}`,
    `--fsize=${limits.scratchMb * 1024 * 1024}`,
    '--nofile=256',
    '--core=0',
  ];
  const env = [
    'PATH=/usr/local/bin:/usr/bin:/bin',
    `HOME=${scratch}`,
    `TMPDIR=${scratch}`,
    'LANG=C.UTF-8',
    // Numeric libraries would start a thread per core and trip the process limit.
    'OPENBLAS_NUM_THREADS=1',
    'OMP_NUM_THREADS=1',
    'MKL_NUM_THREADS=1',
  ];
  const run =
    lang === 'python'
      ? [interpreter, '-I', '-B', '-u', '-X', 'utf8', '-c', PYTHON_WRAPPER]
      : [interpreter, `--max-old-space-size=${limits.memoryMb}`, '-e', NODE_WRAPPER];
  // nice: a script that spins keeps to the CPU the worker does not need.
  return ['prlimit', ...rlimits, '--', 'nice', '-n', '10', 'env', '-i', ...env, ...run];
}

/** `[command, args]` of a sandboxed run whose fresh root is mounted on `rootDir`. */
export function sandboxCommand(
  rootDir: string,
  lang: Language,
  interpreter: string,
  extraDirs: string[],
  limits: SandboxLimits,
  asRoot: boolean,
): [string, string[]] {
  // The arguments go through the shell's word splitting (set -f, no globbing): no blanks in the path.
  if (/\s/.test(limits.bwrap))
    throw new AppError('TOOL_UNAVAILABLE', `CodeExec: CODE_EXEC_BWRAP must be a path without blanks: ${JSON.stringify(limits.bwrap)}`);
  const namespaces = ['--net', '--mount', '--pid', '--ipc', '--uts', '--fork', '--kill-child', '--propagation', 'private'];
  const userns = asRoot ? [] : ['--user', '--map-root-user'];
  const inner = interpreterCommand(lang, interpreter, limits, '/scratch');
  const mode = asRoot ? 'root' : 'userns';
  const wallS = String(limits.timeoutS + KERNEL_WALL_SLACK_S);
  const setup = [
    '/bin/sh',
    '-c',
    SETUP,
    'codeexec-setup',
    rootDir,
    mode,
    String(limits.uid),
    String(limits.gid),
    String(limits.scratchMb),
    extraDirs.join(':'),
    wallS,
    seccompFilter().toString('base64'),
    limits.bwrap,
  ];
  // The worker's death (SIGKILL included) kills unshare (pdeathsig), whose death kills the
  // namespace's PID 1 (--kill-child), whose death kills everything else in the namespace.
  return ['setpriv', ['--pdeathsig', 'KILL', '--', 'unshare', ...userns, ...namespaces, '--', ...setup, ...inner]];
}
