/**
 * The host's process table as /proc shows it (Linux), for tests that check a stop leaves nothing
 * behind: which processes descend from a pid, which of them still live, which ports are taken.
 */
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  state: string;
  command: string;
}

function read(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses: split after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return { pid, ppid: Number(ppid), state: state!, command };
  } catch {
    return null; // gone between listing and reading
  }
}

function allProcesses(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => read(Number(d)))
    .filter((p): p is ProcessInfo => p !== null);
}

/** `root` and every process below it right now (children, their children, ...). */
export function processTree(root: number): ProcessInfo[] {
  const all = allProcesses();
  const found = all.filter((p) => p.pid === root);
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i]!.pid));
  return found;
}

/** Those of `processes` still running (a zombie has finished: only its exit status is left; a reused pid runs something else). */
export function stillRunning(processes: ProcessInfo[]): ProcessInfo[] {
  return processes.filter((p) => {
    const now = read(p.pid);
    return now !== null && now.command === p.command && now.state !== 'Z' && now.state !== 'X';
  });
}

/** True when nothing listens on 127.0.0.1:`port` (we can bind it ourselves). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}
