import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { AGENT_MARK } from '../../src/agents/spawn-agent.ts';
import { STEP_MARK } from '../../src/engine/rig-setup.ts';
import { GATE_MARK } from '../../src/engine/verify/run-gates.ts';
import { isAlive, killTree, startTicks } from '../../src/platform/processes/process-tree.ts';

/** A process a test may have left running: an agent, a rig step or a gate (by its mark), or a sandbox. */
export type TestProcess = { pid: number; ticks: number; cwd: string; cmdline: string };

const MARKS = [AGENT_MARK, STEP_MARK, GATE_MARK].map((name) => `${name}=`);
const OUR_BIN = resolve(import.meta.dirname, '../../bin/ribosome');

/** A command line a reader can take in: a sandbox's long bwrap options cut to what it runs. */
function shortened(cmdline: string): string {
  const bwrap = /^\S*bwrap /.test(cmdline);
  const shown = bwrap ? `bwrap ... ${cmdline.slice(-200)}` : cmdline;
  return shown.length > 400 ? `${shown.slice(0, 400)}...` : shown;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The live processes a test run could have started and must have ended: those carrying an agent,
 * rig-step or gate mark in their environment (a sandbox's outer bwrap carries its agent's), working
 * in the temporary directory where tests keep their executions. A developer's own runs elsewhere
 * are not theirs to judge.
 */
export function testProcesses(): TestProcess[] {
  const tmp = tmpdir();
  const found: TestProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || !isAlive(pid)) continue;
    const cmdline = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    const ours = cmdline.includes(OUR_BIN) && cmdline.includes(`${tmp}/`);
    if (!ours) {
      const environ = read(`/proc/${pid}/environ`);
      if (environ === undefined || !environ.split('\0').some((v) => MARKS.some((m) => v.startsWith(m))))
        continue;
      if (!cwd.startsWith(`${tmp}/`)) continue;
    }
    const ticks = startTicks(pid);
    if (ticks === undefined) continue;
    found.push({ pid, ticks, cwd, cmdline: shortened(cmdline) });
  }
  return found;
}

/** Those of `now` that were not already running in `before` (same pid and start time). */
export function startedSince(before: readonly TestProcess[], now: readonly TestProcess[]): TestProcess[] {
  const known = new Set(before.map((p) => `${p.pid}:${p.ticks}`));
  return now.filter((p) => !known.has(`${p.pid}:${p.ticks}`));
}

/** Ends each (whole trees) and says which were left, one line each. */
export async function endLeftovers(left: readonly TestProcess[]): Promise<string> {
  await Promise.all(left.map((p) => killTree(p.pid, 0)));
  return left.map((p) => `  pid ${p.pid} in ${p.cwd}: ${p.cmdline}`).join('\n');
}
