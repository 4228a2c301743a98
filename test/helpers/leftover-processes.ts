import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isAlive, killTree } from '../../src/platform/processes/process-tree.ts';

/** A process a test may have left running, where it works and what it runs. */
export type TestProcess = { pid: number; cwd: string; cmdline: string };

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A command line a reader can take in: a sandbox's long bwrap options cut to what it runs. */
function shortened(cmdline: string): string {
  const shown = /^\S*bwrap /.test(cmdline) ? `bwrap ... ${cmdline.slice(-200)}` : cmdline;
  return shown.length > 400 ? `${shown.slice(0, 400)}...` : shown;
}

/**
 * The live processes (not this one) that work in `root` or name it on their command line: for a test
 * run's own temporary directory, whatever its tests started there (agents, sandboxes, servers, gates).
 */
export function processesUnder(root: string): TestProcess[] {
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
    if (!cwd.startsWith(`${root}/`) && !cmdline.includes(`${root}/`)) continue;
    found.push({ pid, cwd, cmdline: shortened(cmdline) });
  }
  return found;
}

/** Ends each (whole trees) and says which were left, one line each. */
export async function endLeftovers(left: readonly TestProcess[]): Promise<string> {
  await Promise.all(left.map((p) => killTree(p.pid, 0)));
  return left.map((p) => `  pid ${p.pid} in ${p.cwd}: ${p.cmdline}`).join('\n');
}
