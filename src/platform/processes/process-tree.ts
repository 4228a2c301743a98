import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids in /proc (Linux). Empty when /proc cannot be listed (out of file descriptors): callers
 * then still signal what they know (a pid, its group), and the next look finds the rest.
 */
function allPids(): string[] {
  try {
    return readdirSync('/proc');
  } catch {
    return [];
  }
}

/** Parent pid of every process, read from /proc (Linux). */
function parentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of allPids()) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // Gone meanwhile.
    }
    // Field 4 is the ppid; the command name (field 2) may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  return children;
}

/**
 * Every descendant of `pid`, found before any signal is sent: a tool's child may sit in a session
 * of its own (Claude Code's Bash tool does), out of reach of a signal to the agent's group.
 */
export function descendants(pid: number): number[] {
  const children = parentMap();
  const found: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const next = stack.pop()!;
    for (const child of children.get(next) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** A process's command line, its arguments joined by spaces; undefined if gone (or not on Linux). */
export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/**
 * When the process started (clock ticks since boot, /proc/PID/stat field 22): with its pid, this
 * names one process, so a pid reused since by another process is told apart. Undefined if gone.
 */
export function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Processes (other than this one) whose environment holds `name=value`: what a command started,
 * even what detached into a session of its own (`setsid server &`) and left the parent-child
 * tree, since the environment is inherited. Processes that cleared their environment are not found.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of allPids()) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(wanted)) found.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Ends every process whose environment holds `name=value` (processesWithEnv), whole trees, and
 * looks again until none is left, for processes forked meanwhile. Returns how many it found.
 */
export async function endMarked(name: string, value: string, graceMs: number): Promise<number> {
  const ended = new Set<number>();
  for (let round = 0; round < 5; round++) {
    const found = processesWithEnv(name, value);
    if (found.length === 0) break;
    for (const pid of found) ended.add(pid);
    await Promise.all(found.map((pid) => killTree(pid, graceMs)));
  }
  return ended.size;
}

/** True while the process exists and is not a zombie (a zombie has ended; only its entry waits). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Ends a process, its group and all its descendants: SIGTERM to all, then SIGKILL to whatever is
 * still alive after `graceMs`. Descendants are collected again before SIGKILL, for processes that
 * were forked during the grace period. Resolves once they are gone.
 */
export async function killTree(pid: number, graceMs: number): Promise<void> {
  const tree = [pid, ...descendants(pid)];
  signal(-pid, 'SIGTERM');
  for (const p of tree) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && tree.some(isAlive)) await new Promise((r) => setTimeout(r, 25));
  const remaining = new Set([...tree, ...tree.filter(isAlive).flatMap(descendants)]);
  signal(-pid, 'SIGKILL');
  for (const p of remaining) signal(p, 'SIGKILL');
  // SIGKILL takes a moment to land: done means gone (bounded, for a process stuck in the kernel).
  const killed = Date.now() + KILL_WAIT_MS;
  while (Date.now() < killed && [...remaining].some(isAlive)) await new Promise((r) => setTimeout(r, 10));
}

const KILL_WAIT_MS = 2_000;

/** True while a process of group `pgid` exists (a zombie counts). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Ends what is left of the process group of a leader that has exited and been reaped: SIGTERM to
 * the group, SIGKILL after `graceMs` if it is still there. Unlike killTree it neither signals the
 * leader's pid (another process may have it by now) nor looks for its descendants in /proc (they
 * left its tree when it exited): what carries a run's mark is found by endMarked.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupExists(pgid)) return;
  signal(-pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupExists(pgid)) await new Promise((r) => setTimeout(r, 25));
  signal(-pgid, 'SIGKILL');
}
