/**
 * The memory of a process and its descendants, sampled from /proc (Linux): the tree's resident set
 * (the sum of its processes' VmRSS) at every sample, each process's own peak (VmHWM, which the kernel
 * keeps, so a short peak between two samples is not lost) and the CPU time the root used.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { descendants } from '../src/platform/processes/process-tree.ts';
import { median } from './stats.ts';

export type ProcessPeak = { pid: number; name: string; peakBytes: number };

export type TreeMemory = {
  samples: number;
  /** The largest tree RSS sampled. */
  peakBytes: number;
  /** The median tree RSS over the middle half of the watched time (after start-up, before the end). */
  steadyBytes: number;
  /** Every process seen, with its own peak, largest first. */
  processes: ProcessPeak[];
  /** The root's user + system CPU time, as last read. */
  rootCpuMs: number;
  /** The root's CPU time as it grew: when (epoch ms) it was read, and how much. */
  rootCpu: { atMs: number; cpuMs: number }[];
};

/** VmRSS and VmHWM (bytes) of a process; undefined once it is gone. */
function status(pid: number): { rss: number; hwm: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

/** `claude.exe`, `socat`; a Node process by its script (`node main.ts`: Node names its thread MainThread). */
function nameOf(pid: number): string {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return '?';
  }
  const program = basename(argv[0] ?? '?');
  if (program !== 'node') return program;
  const script = argv.slice(1).find((a) => /\.(m?[jt]s)$/.test(a));
  return script ? `node ${basename(script)}` : 'node';
}

/** utime + stime of a process in ms (/proc/PID/stat fields 14 and 15, at 100 ticks a second). */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * What to count: the root alone, or its descendants without it (the root is a wrapper such as
 * /usr/bin/time), or both. Listing descendants reads every /proc/PID/stat: cheap for one tree, but
 * not free on a busy machine, so the throughput runs watch their root alone.
 */
export type Scope = 'root' | 'descendants' | 'tree';

/** Samples `root` every `everyMs`, as `scope` says, until `stop()`. */
export function watchTree(root: number, everyMs: number, scope: Scope): { stop(): TreeMemory } {
  const sums: { at: number; bytes: number }[] = [];
  const peaks = new Map<number, ProcessPeak>();
  const rootCpu: TreeMemory['rootCpu'] = [];
  const started = performance.now();
  const sample = () => {
    let bytes = 0;
    const pids = scope === 'root' ? [root] : descendants(root);
    for (const pid of scope === 'tree' ? [root, ...pids] : pids) {
      const s = status(pid);
      if (!s) continue;
      bytes += s.rss;
      const seen = peaks.get(pid);
      // Named again as it grows: a wrapper (sh, bwrap) that execs the agent keeps its pid.
      if (!seen || s.hwm > seen.peakBytes) peaks.set(pid, { pid, name: nameOf(pid), peakBytes: s.hwm });
    }
    const cpu = cpuMs(root);
    if (cpu !== undefined) rootCpu.push({ atMs: Date.now(), cpuMs: cpu });
    if (bytes > 0) sums.push({ at: performance.now() - started, bytes });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      const span = sums.at(-1)?.at ?? 0;
      const middle = sums.filter((s) => s.at >= span * 0.25 && s.at <= span * 0.75).map((s) => s.bytes);
      return {
        samples: sums.length,
        peakBytes: Math.max(0, ...sums.map((s) => s.bytes)),
        steadyBytes: middle.length > 0 ? median(middle) : 0,
        processes: [...peaks.values()].sort((a, b) => b.peakBytes - a.peakBytes),
        rootCpuMs: rootCpu.at(-1)?.cpuMs ?? 0,
        rootCpu,
      };
    },
  };
}
