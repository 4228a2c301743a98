import { describe, expect, it } from 'vitest';
import { type PathKind, sandboxArgv } from '../../../src/platform/sandbox/argv.ts';
import type { SandboxLaunch } from '../../../src/platform/sandbox/launch.ts';

/** A file system of the listed paths: `/x/` is a directory, anything else a file; the rest missing. */
const fs =
  (...paths: string[]) =>
  (path: string): PathKind =>
    paths.includes(`${path}/`) ? 'dir' : paths.includes(path) ? 'file' : 'missing';

const open = { kind: 'open' } as const;
/** A host root: two directories, a merged-usr link, and what the sandbox makes of its own. */
const rootEntries = () => [
  { name: 'usr' },
  { name: 'bin', link: 'usr/bin' },
  { name: 'etc' },
  { name: 'tmp' },
  { name: 'proc' },
  { name: 'dev' },
];
const context = { installRoot: '/opt/ribosome', path: '/usr/bin:/bin', node: '/usr/bin/node', rootEntries };

/** The argument pairs after the fixed prefix, up to the command. */
function mounts(args: string[]): string[][] {
  const start = args.indexOf('/tmp', args.indexOf('--tmpfs')) + 1;
  const pairs: string[][] = [];
  for (let i = start; i < args.length; ) {
    const flag = args[i]!;
    const width =
      flag === '--tmpfs' || flag === '--chdir' || flag === '--remount-ro'
        ? 2
        : flag === '--bind' || flag === '--ro-bind'
          ? 3
          : 0;
    if (width === 0) break;
    pairs.push(args.slice(i, i + width));
    i += width;
  }
  return pairs;
}

describe('sandboxArgv', () => {
  it('starts from a read-only system with a private /tmp, its own /proc and pid namespace', () => {
    const launch: SandboxLaunch = { writable: [], readOnly: [], hidden: [], network: open };
    const { command, args } = sandboxArgv(launch, 'claude', ['-p', 'hi'], { ...context, kind: fs() });
    expect(command).toBe('bwrap');
    // The host's root entry by entry (not / whole, which would carry the mounts under /tmp along);
    // /dev, /proc and /tmp are the sandbox's own.
    expect(args).toEqual([
      '--die-with-parent',
      '--unshare-pid',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--ro-bind',
      '/etc',
      '/etc',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--remount-ro',
      '/',
      'claude',
      '-p',
      'hi',
    ]);
  });

  it('mounts shallow paths first so deeper ones win, and at one path hidden over read-only over writable', () => {
    const launch: SandboxLaunch = {
      writable: ['/x/exec/root', '/x/exec/home/', '/x/same'],
      readOnly: ['/x/exec/root/data', '/x/same'],
      hidden: ['/x/exec/root/data/secret.txt', '/home/ann/.ssh', '/x/same', '/home/ann/.gone'],
      network: open,
    };
    const kind = fs(
      '/x/exec/root/',
      '/x/exec/home/',
      '/x/exec/root/data/',
      '/x/exec/root/data/secret.txt',
      '/home/ann/.ssh/',
      '/x/same/',
    );
    const { args } = sandboxArgv(launch, 'sh', [], { ...context, kind, cwd: '/x/exec/root' });
    expect(mounts(args)).toEqual([
      ['--bind', '/x/same', '/x/same'],
      ['--ro-bind', '/x/same', '/x/same'],
      ['--tmpfs', '/x/same'],
      ['--bind', '/x/exec/root', '/x/exec/root'],
      ['--bind', '/x/exec/home', '/x/exec/home'],
      ['--tmpfs', '/home/ann/.ssh'],
      ['--ro-bind', '/x/exec/root/data', '/x/exec/root/data'],
      ['--ro-bind', '/dev/null', '/x/exec/root/data/secret.txt'],
      // The sandbox's root and hidden directories turn read-only once every bind inside is in place.
      ['--remount-ro', '/'],
      ['--remount-ro', '/x/same'],
      ['--remount-ro', '/home/ann/.ssh'],
      ['--chdir', '/x/exec/root'],
    ]);
  });

  it('keeps the install, PATH entries and the command visible when they lie under the private /tmp', () => {
    const launch: SandboxLaunch = { writable: [], readOnly: [], hidden: [], network: open };
    const kind = fs('/tmp/inst/', '/tmp/bin/', '/tmp/tools/', '/tmp/clone/node_modules/node/bin/');
    const { args } = sandboxArgv(launch, '/tmp/tools/agent', [], {
      installRoot: '/tmp/inst',
      path: '/usr/bin:/tmp/bin:/tmp',
      // The Node running Ribosome, in a clone under /tmp: a PATH entry may hold only a link to it.
      node: '/tmp/clone/node_modules/node/bin/node',
      rootEntries,
      kind,
    });
    expect(mounts(args)).toEqual([
      ['--ro-bind', '/tmp/inst', '/tmp/inst'],
      ['--ro-bind', '/tmp/bin', '/tmp/bin'],
      ['--ro-bind', '/tmp/tools', '/tmp/tools'],
      ['--ro-bind', '/tmp/clone/node_modules/node/bin', '/tmp/clone/node_modules/node/bin'],
      ['--remount-ro', '/'],
    ]);
  });

  it('for a gated network: its own network namespace, the gate socket, and socat started before the command', () => {
    const launch: SandboxLaunch = {
      writable: [],
      readOnly: [],
      hidden: [],
      network: { kind: 'gated', socket: '/tmp/rsb-1/net.sock', port: 3128 },
    };
    const { args } = sandboxArgv(launch, 'codex', ['exec', "it's $HOME"], {
      ...context,
      kind: fs(),
      socat: '/usr/bin/socat',
    });
    expect(args.slice(0, 3)).toEqual(['--die-with-parent', '--unshare-pid', '--unshare-net']);
    const sh = args.indexOf('/bin/sh');
    expect(args.slice(sh - 3, sh)).toEqual([
      '--ro-bind',
      '/tmp/rsb-1/net.sock',
      '/tmp/.ribosome-sandbox/net.sock',
    ]);
    const script = args[sh + 2]!;
    expect(script).toContain(
      '/usr/bin/socat TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/tmp/.ribosome-sandbox/net.sock &',
    );
    expect(script).toContain("'0100007F:0C38 0A'");
    expect(script.endsWith('exec "$@"')).toBe(true);
    // The command goes as positional parameters, unquoted into the script.
    expect(args.slice(sh + 1)).toEqual(['-c', script, 'ribosome-sandbox', 'codex', 'exec', "it's $HOME"]);
    expect(script).not.toContain('codex');
  });

  it('with a lifeline: a watcher kills the whole sandbox at its end of file; the command does not get it', () => {
    const launch: SandboxLaunch = { writable: [], readOnly: [], hidden: [], network: open };
    const { args } = sandboxArgv(launch, 'claude', ['-p'], { ...context, kind: fs(), lifeline: 3 });
    const sh = args.indexOf('/bin/sh');
    expect(sh).toBeGreaterThan(0);
    const script = args[sh + 2]!;
    expect(script.split('\n')).toEqual([
      '( read -r _ <&3; kill -KILL -1 ) >/dev/null 2>&1 </dev/null &',
      'exec "$@" 3<&-',
    ]);
    expect(args.slice(sh + 3)).toEqual(['ribosome-sandbox', 'claude', '-p']);
    // Without one, and with an open network, the command runs as it is: no shell in between.
    const plain = sandboxArgv(launch, 'claude', ['-p'], { ...context, kind: fs() }).args;
    expect(plain).not.toContain('/bin/sh');
    expect(plain.slice(-2)).toEqual(['claude', '-p']);
  });

  it("binds a PATH's node_modules/.bin under /tmp with the packages its links lead into", () => {
    const launch: SandboxLaunch = { writable: [], readOnly: [], hidden: [], network: open };
    const kind = fs('/tmp/clone/node_modules/', '/tmp/clone/node_modules/.bin/');
    const { args } = sandboxArgv(launch, 'node', [], {
      installRoot: '/opt/ribosome',
      path: '/usr/bin:/tmp/clone/node_modules/.bin',
      node: '/usr/bin/node',
      rootEntries,
      kind,
    });
    expect(mounts(args)).toEqual([
      ['--ro-bind', '/tmp/clone/node_modules', '/tmp/clone/node_modules'],
      ['--remount-ro', '/'],
    ]);
  });
});
