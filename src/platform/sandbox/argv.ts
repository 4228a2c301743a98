import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SandboxLaunch } from './launch.ts';

/** What a path is on the host: a hidden directory becomes an empty tmpfs, a hidden file /dev/null. */
export type PathKind = 'dir' | 'file' | 'missing';

export type SandboxArgvContext = {
  /** [the package root] Ribosome's own install: bound read-only when it lies under the private /tmp. */
  installRoot?: string;
  /** [process.env.PATH] The process's PATH: its entries under /tmp are bound read-only. */
  path?: string;
  /**
   * [process.execPath] The Node that runs Ribosome, which the agents start again (`bin/ribosome`, the
   * CLIs' `#!/usr/bin/env node`): its directory is bound read-only when it lies under /tmp, since a
   * PATH entry there may hold only a link to it.
   */
  node?: string;
  /** The working directory inside (bwrap starts in `/` otherwise, or where it happens to be). */
  cwd?: string;
  /** [bwrap] The bwrap binary (sandboxSupport finds it). */
  bwrap?: string;
  /** [socat] The socat binary (sandboxSupport finds it). */
  socat?: string;
  /**
   * An inherited descriptor whose other end only the server holds (a pipe): at its end of file the
   * sandbox is killed whole (sandboxInit). Without it a server killed in bwrap's first milliseconds
   * leaves the sandbox running.
   */
  lifeline?: number;
  /** [reads the file system] What a path is. */
  kind?: (path: string) => PathKind;
  /** [reads `/`] The entries of the host's root directory, with where each symbolic link leads. */
  rootEntries?: () => readonly RootEntry[];
};

/** An entry of the host's `/`: bound read-only inside, or made the same symbolic link. */
export type RootEntry = { name: string; link?: string };

/** What the sandbox makes afresh rather than binds from the host. */
const MADE_INSIDE = new Set(['dev', 'proc', 'tmp']);

function hostRoot(): RootEntry[] {
  return readdirSync('/', { withFileTypes: true }).map((entry) =>
    entry.isSymbolicLink()
      ? { name: entry.name, link: readlinkSync(`/${entry.name}`) }
      : { name: entry.name },
  );
}

/**
 * The host's `/`, read-only, one top-level entry at a time rather than `/` whole: a recursive bind of
 * `/` would carry a copy of every mount under /tmp into the sandbox's namespace, where it stays
 * mounted, unseen behind the private /tmp, as long as the agent runs (another run's disk could not
 * be unmounted and repaired meanwhile). The sandbox's own root is then made read-only too.
 */
function rootBinds(entries: readonly RootEntry[]): string[] {
  return entries
    .filter((entry) => !MADE_INSIDE.has(entry.name))
    .flatMap((entry) =>
      entry.link === undefined
        ? ['--ro-bind', `/${entry.name}`, `/${entry.name}`]
        : ['--symlink', entry.link, `/${entry.name}`],
    );
}

/** Where Ribosome hands a sandboxed process its lifeline (sandboxInit): the descriptor after stderr. */
export const LIFELINE_FD = 3;

/** Where the gate's Unix socket appears inside the sandbox (in its private /tmp). */
export const SANDBOX_SOCKET = '/tmp/.ribosome-sandbox/net.sock';

/** The package root, from this file's place (src/platform/sandbox/). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/** Steps of 5 ms to wait for socat's listener before the command starts anyway (about 2 s). */
const LISTEN_WAIT_STEPS = 400;

function fileKind(path: string): PathKind {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

const depth = (path: string): number => path.split('/').filter(Boolean).length;
const under = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);
const clean = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** Ranks at one path: the later mount wins, so hidden beats read-only beats writable beats visible. */
const RANK = { visible: 0, writable: 1, readOnly: 2, hidden: 3 } as const;
type Mount = { path: string; as: keyof typeof RANK };

/**
 * The in-sandbox init, a shell script that ends by exec'ing the command (which comes as positional
 * parameters: nothing of it is quoted into the script), or undefined when none is needed.
 * - `lifeline`: a descriptor only the server holds the other end of. A watcher reads it; at its end of
 *   file (the server is gone, however it died) it kills everything in the sandbox's process namespace.
 *   bwrap's --die-with-parent takes hold only some milliseconds after bwrap starts: a server killed
 *   before that would leave the sandbox running. The command does not inherit the descriptor.
 * - `port`, for a gated network: socat listens on loopback `port` and forwards each connection to the
 *   gate's socket; the command starts once /proc/net/tcp lists the listener (127.0.0.1 is 0100007F
 *   there; 0A is LISTEN), or after about 2 s.
 */
export function sandboxInit(options: {
  lifeline?: number;
  port?: number;
  socat?: string;
}): string | undefined {
  const { lifeline, port, socat = 'socat' } = options;
  if (lifeline === undefined && port === undefined) return undefined;
  const lines: string[] = [];
  if (lifeline !== undefined) {
    lines.push(`( read -r _ <&${lifeline}; kill -KILL -1 ) >/dev/null 2>&1 </dev/null &`);
  }
  if (port !== undefined) {
    const hex = port.toString(16).toUpperCase().padStart(4, '0');
    lines.push(
      `${socat} TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_SOCKET} &`,
      // Shell builtins only in the look: a grep per step cost more than the wait itself.
      `listening() { while read -r _ l _ s _; do [ "$l $s" = '0100007F:${hex} 0A' ] && return 0; done </proc/net/tcp; return 1; }`,
      `i=0; until listening || [ $i -ge ${LISTEN_WAIT_STEPS} ]; do sleep 0.005; i=$((i+1)); done`,
    );
  }
  lines.push(lifeline === undefined ? 'exec "$@"' : `exec "$@" ${lifeline}<&-`);
  return lines.join('\n');
}

/**
 * The bwrap command line that runs `command args` inside `launch` (docs/agents.md#the-sandbox):
 * the whole system read-only (but for what is mounted under /tmp), a private /tmp, /proc of its own process namespace, then the
 * launch's mounts from the shallowest path to the deepest (a deeper one wins: a read-only data
 * directory inside a writable root stays read-only). A path that does not exist is left out.
 * Pure, but for `context.kind` and the defaults named there.
 */
export function sandboxArgv(
  launch: SandboxLaunch,
  command: string,
  args: readonly string[],
  context: SandboxArgvContext = {},
): { command: string; args: string[] } {
  const kind = context.kind ?? fileKind;
  const installRoot = context.installRoot ?? PACKAGE_ROOT;
  const path = context.path ?? process.env.PATH ?? '';
  const gated = launch.network.kind === 'gated';

  // What the private /tmp would hide and the command needs: the install and the node_modules its
  // dependencies are found in (an installed package's are beside it, in its parents'), PATH entries,
  // the command.
  const visible = [
    installRoot,
    ...moduleDirsAbove(installRoot),
    // A `node_modules/.bin` on PATH holds links into the packages beside it: all of them are needed.
    ...path.split(':').map((entry) => entry.replace(/\/node_modules\/\.bin\/?$/, '/node_modules')),
    ...(command.startsWith('/') ? [dirOf(command)] : []),
    dirOf(context.node ?? process.execPath),
  ]
    .filter((p) => p.startsWith('/') && under(clean(p), '/tmp') && clean(p) !== '/tmp')
    .map(clean);
  const mounts: Mount[] = [
    ...visible.map((p): Mount => ({ path: p, as: 'visible' })),
    ...launch.writable.map((p): Mount => ({ path: clean(p), as: 'writable' })),
    ...launch.readOnly.map((p): Mount => ({ path: clean(p), as: 'readOnly' })),
    ...launch.hidden.map((p): Mount => ({ path: clean(p), as: 'hidden' })),
  ];
  const seen = new Set<string>();
  const sorted = mounts
    .filter((m) => {
      const key = `${m.as} ${m.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => depth(a.path) - depth(b.path) || RANK[a.as] - RANK[b.as]);

  const argv = ['--die-with-parent', '--unshare-pid'];
  if (gated) argv.push('--unshare-net');
  argv.push(...rootBinds((context.rootEntries ?? hostRoot)()));
  argv.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  const emptied: string[] = [];
  for (const mount of sorted) {
    const what = kind(mount.path);
    if (what === 'missing') continue;
    if (mount.as === 'hidden') {
      if (what === 'dir') {
        argv.push('--tmpfs', mount.path);
        emptied.push(mount.path);
      } else argv.push('--ro-bind', '/dev/null', mount.path);
    } else if (mount.as === 'writable') argv.push('--bind', mount.path, mount.path);
    else argv.push('--ro-bind', mount.path, mount.path);
  }
  // Once the deeper binds have their mount points in it, a hidden directory turns read-only: a write
  // there fails (EROFS) rather than seeming to work. The binds inside are mounts of their own and keep
  // their mode.
  for (const path of ['/', ...emptied]) argv.push('--remount-ro', path);
  if (context.cwd) argv.push('--chdir', context.cwd);
  if (launch.network.kind === 'gated') argv.push('--ro-bind', launch.network.socket, SANDBOX_SOCKET);
  const init = sandboxInit({
    ...(context.lifeline !== undefined ? { lifeline: context.lifeline } : {}),
    ...(launch.network.kind === 'gated' ? { port: launch.network.port } : {}),
    ...(context.socat ? { socat: context.socat } : {}),
  });
  if (init) argv.push('/bin/sh', '-c', init, 'ribosome-sandbox', command, ...args);
  else argv.push(command, ...args);
  return { command: context.bwrap ?? 'bwrap', args: argv };
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

/** `node_modules` of every directory above `root`, where Node looks for its dependencies. */
function moduleDirsAbove(root: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirOf(root); dir !== '/'; dir = dirOf(dir)) dirs.push(`${dir}/node_modules`);
  return dirs;
}
