import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export type SandboxSupport =
  | { ok: true; bwrap: string; socat: string }
  | { ok: false; missing: string[]; why: string; install: string };

const INSTALL = 'apt-get install bubblewrap socat';

/** How long the probe's one sandboxed `true` may take (a stuck kernel must not hang a start). */
const PROBE_TIMEOUT_MS = 10_000;

let cached: SandboxSupport | undefined;

/**
 * Whether this machine can run sandboxed agents (docs/agents.md#the-sandbox): Linux, `bwrap` and
 * `socat` on PATH, and one real `bwrap ... true` in the namespaces a sandbox uses, since a kernel or
 * a container may forbid them (unprivileged user namespaces off, seccomp). Probed once per process.
 */
export function sandboxSupport(): SandboxSupport {
  cached ??= probe();
  return cached;
}

function probe(): SandboxSupport {
  if (process.platform !== 'linux')
    return {
      ok: false,
      missing: [],
      why: `the sandbox needs Linux (bubblewrap); this is ${process.platform}`,
      install: 'run Ribosome on Linux (or in a Linux container) with bubblewrap and socat',
    };
  const bwrap = onPath('bwrap');
  const socat = onPath('socat');
  const missing = [...(bwrap ? [] : ['bwrap']), ...(socat ? [] : ['socat'])];
  if (!bwrap || !socat)
    return { ok: false, missing, why: `${missing.join(' and ')} not found on PATH`, install: INSTALL };
  const run = spawnSync(
    bwrap,
    ['--die-with-parent', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev'].concat([
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      'true',
    ]),
    { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (run.status === 0) return { ok: true, bwrap, socat };
  const said =
    (run.stderr ?? '').trim().split('\n').slice(-1)[0] || run.error?.message || `exit ${run.status}`;
  return {
    ok: false,
    missing: [],
    why: `bwrap cannot create the sandbox's namespaces here: ${said}`,
    install:
      'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run in a container that permits them',
  };
}

/** The executable `name` in a PATH directory, as a shell finds it. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
