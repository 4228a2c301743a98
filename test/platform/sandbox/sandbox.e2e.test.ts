/**
 * Agents' processes under the real sandbox (bubblewrap and socat), started by spawnAgent with small
 * `sh -c` probes: what they can write, see, reach and leave behind. CI installs both (.ci/run) and
 * fails without them; elsewhere the file is skipped with a line saying what to install.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnAgent } from '../../../src/agents/spawn-agent.ts';
import type { ProcessExit } from '../../../src/core/protocol/index.ts';
import {
  type NetworkGate,
  type SandboxDenial,
  type SandboxLaunch,
  sandboxSupport,
  startNetworkGate,
} from '../../../src/platform/sandbox/index.ts';
import { mountTmpfs, tmpfsSupport, unmountAll } from '../../helpers/mounts.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';

const support = sandboxSupport();
if (!support.ok && process.env.CI !== 'true')
  console.warn(`test/platform/sandbox/sandbox.e2e.test.ts skipped: ${support.why} (${support.install})`);

describe.runIf(!support.ok && process.env.CI === 'true')('the sandbox (CI)', () => {
  it('is supported (CI installs bubblewrap and socat)', () => {
    throw new Error(support.ok ? '' : `${support.why}: ${support.install}`);
  });
});

const temps: string[] = [];
const servers: Server[] = [];
const gates: NetworkGate[] = [];
const leftovers: number[] = [];
afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  await Promise.all(gates.splice(0).map((g) => g.close()));
  for (const s of servers.splice(0)) s.close();
});
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-'));
  temps.push(dir);
  return dir;
}

const open = { kind: 'open' } as const;

/** Starts `script` under `sh -c` in the sandbox; everything it prints is collected. */
function start(launch: SandboxLaunch, script: string, cwd = '/') {
  const run = spawnAgent({
    command: 'sh',
    args: ['-c', script],
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdin: '',
    mark: randomUUID(),
    sandbox: launch,
  });
  let output = '';
  run.onStderr((text) => {
    output += `${text.replace(/^\[stdout, not stream-json\] /, '')}\n`;
  });
  const done = (async (): Promise<{ output: string; exit: ProcessExit }> => {
    for await (const _ of run.lines) {
      // Probes print no stream-json.
    }
    const exit = await run.exited;
    return { output, exit };
  })();
  return { run, done, output: () => output };
}

const runProbe = (launch: SandboxLaunch, script: string, cwd?: string) => start(launch, script, cwd).done;

describe.skipIf(!support.ok)('the sandbox', { timeout: 30_000 }, () => {
  it('lets the agent write its writable paths, and nothing else: not outside, not a read-only path inside', async () => {
    const root = temp();
    mkdirSync(join(root, 'data'));
    writeFileSync(join(root, 'data', 'kept.txt'), 'original');
    const outside = `/var/tmp/sandbox-e2e-${randomUUID()}`;
    const { output, exit } = await runProbe(
      { writable: [root], readOnly: [join(root, 'data')], hidden: [], network: open },
      [
        'echo inside > made.txt && echo wrote-inside',
        `echo x > ${outside} || echo outside-refused`,
        'echo changed > data/kept.txt || echo data-refused',
      ].join('\n'),
      root,
    );
    expect(exit).toEqual({ type: 'success' });
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(output).toContain('wrote-inside');
    expect(output).toContain(`cannot create ${outside}: Read-only file system`);
    expect(output).toContain('outside-refused');
    expect(existsSync(outside)).toBe(false);
    expect(output).toContain('cannot create data/kept.txt: Read-only file system');
    expect(output).toContain('data-refused');
    expect(readFileSync(join(root, 'data', 'kept.txt'), 'utf8')).toBe('original');
  });

  it('shows a hidden directory empty and a hidden file empty, their content nowhere', async () => {
    const root = temp();
    const secret = `SECRET-${randomUUID()}`;
    mkdirSync(join(root, '.ribosome'));
    writeFileSync(join(root, '.ribosome', 'journal'), secret);
    writeFileSync(join(root, 'token.txt'), secret);
    const { output } = await runProbe(
      {
        writable: [root],
        readOnly: [],
        hidden: [join(root, '.ribosome'), join(root, 'token.txt')],
        network: open,
      },
      [
        'echo "dir:[$(ls -A .ribosome)]"',
        'echo "file:[$(cat token.txt)]"',
        'cat .ribosome/journal; grep -r SECRET- . ; echo probed',
      ].join('\n'),
      root,
    );
    expect(output).toContain('dir:[]');
    expect(output).toContain('file:[]');
    expect(output).toContain('probed');
    expect(output).not.toContain(secret);
    expect(readFileSync(join(root, '.ribosome', 'journal'), 'utf8')).toBe(secret);
  });

  it("keeps /tmp private, and shows only the sandbox's own processes in /proc", async () => {
    const secret = `SECRET-${randomUUID()}`;
    // Another process of the host with a secret in its environment, as the server's key is.
    const host = spawn('sleep', ['600'], {
      env: { PATH: process.env.PATH, PLANTED_KEY: secret },
      stdio: 'ignore',
    });
    leftovers.push(host.pid!);
    const name = `sandbox-e2e-${randomUUID()}`;
    const { output } = await runProbe(
      { writable: [], readOnly: [], hidden: [], network: open },
      [
        `echo private > /tmp/${name} && echo wrote-tmp`,
        `echo "pids:$(ls /proc | grep -c '^[0-9]')"`,
        `cat /proc/${host.pid}/environ; cat /proc/${process.pid}/environ; cat /proc/*/environ | tr '\\0' '\\n'`,
        'echo probed',
      ].join('\n'),
    );
    expect(output).toContain('wrote-tmp');
    expect(existsSync(join('/tmp', name))).toBe(false);
    // sh, the pid namespace's init, and the few commands of the pipeline.
    expect(Number(/pids:(\d+)/.exec(output)?.[1])).toBeLessThan(8);
    expect(output).toContain('probed');
    expect(output).not.toContain(secret);
  });

  it.skipIf(!tmpfsSupport().ok)(
    "carries no mount of the host's /tmp along: a disk mounted there is not held by an agent's sandbox",
    async () => {
      const root = temp();
      const disk = join(temp(), 'disk');
      mountTmpfs(disk, '1m');
      try {
        const { output } = await runProbe(
          { writable: [root], readOnly: [], hidden: [], network: open },
          ['cat /proc/self/mountinfo', 'touch /made-at-root || echo root-refused'].join('\n'),
          root,
        );
        expect(output).toContain(` ${root} `); // the agent root is mounted; mountinfo is what we think
        expect(output).not.toContain(disk);
        expect(output).toContain('root-refused');
      } finally {
        unmountAll();
      }
    },
  );

  it('ends a process that left the session and cleared its environment, when the agent ends', async () => {
    const m = 30_000 + Math.floor(Math.random() * 5000);
    const { exit } = await runProbe(
      { writable: [], readOnly: [], hidden: [], network: open },
      `setsid sh -c 'exec env -i sleep ${m}' >/dev/null 2>&1 &\nsleep 0.2\necho left`,
    );
    expect(exit).toEqual({ type: 'success' });
    leftovers.push(...pidsWith(`sleep ${m}`));
    // The kernel ends it as the namespace's init exits, which may be a moment after bwrap reported
    // the agent's exit: on a loaded machine it can still be seen dying.
    await waitFor(
      () => pidsWith(`sleep ${m}`).length === 0,
      'the left process to end with its sandbox',
      5000,
    );
  });

  it('on stop: the agent is asked to end first, and every process of the sandbox ends', async () => {
    const m = 35_000 + Math.floor(Math.random() * 5000);
    const probe = start(
      { writable: [], readOnly: [], hidden: [], network: open },
      [
        `setsid sh -c 'exec env -i sleep ${m}' >/dev/null 2>&1 &`,
        // An agent that takes a moment to end well (saves its session): it is given the time.
        "trap 'sleep 0.5; echo asked-to-end; exit 3' TERM",
        'echo ready',
        `sleep ${m + 1} & wait`,
      ].join('\n'),
    );
    await waitFor(
      () => probe.output().includes('ready') && pidsWith(`sleep ${m}`).length > 0,
      'the probe to start',
    );
    leftovers.push(...pidsWith(`sleep ${m}`));
    await probe.run.stop(5_000);
    const { output, exit } = await probe.done;
    expect(output).toContain('asked-to-end');
    expect(exit).toEqual({ type: 'killed', signal: 'SIGTERM' });
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    expect(pidsWith(`sleep ${m + 1}`)).toEqual([]);
  });

  it('gated network: the route and allowed hosts answer; other hosts, other routes and direct connections do not', async () => {
    const serve = async (name: string) => {
      const server = createServer((req, res) => res.end(`${name} answered ${req.method} ${req.url}`));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    };
    const [route, a, b] = [await serve('route'), await serve('A'), await serve('B')];
    const denied: SandboxDenial[] = [];
    const gate = await startNetworkGate({
      route: `http://127.0.0.1:${route}/t/cred/p/1`,
      allow: [`127.0.0.1:${a}`],
      onDenied: (d) => denied.push(d),
    });
    gates.push(gate);
    expect(gate.port).toBe(route);
    const curl = (label: string, args: string) =>
      `r=$(curl -sS --max-time 10 -w ' %{http_code}' ${args} 2>&1); echo "${label}: $r exit=$?"`;
    const { output } = await runProbe(
      {
        writable: [],
        readOnly: [],
        hidden: [],
        network: { kind: 'gated', socket: gate.socket, port: gate.port },
      },
      [
        curl('allowed', `http://127.0.0.1:${a}/hello`),
        curl('tunnel', `--proxytunnel http://127.0.0.1:${a}/tunnelled`),
        curl('refused', `http://127.0.0.1:${b}/secret?q=1`),
        curl('refused-tunnel', `--proxytunnel http://127.0.0.1:${b}/t`),
        curl('direct', `--noproxy '*' http://127.0.0.1:${b}/direct`),
        curl('route', `http://127.0.0.1:${route}/t/cred/p/1/v1/models`),
        curl('origin', `--noproxy '*' http://127.0.0.1:${route}/t/cred/p/1/v1/messages`),
        curl('other-route', `--noproxy '*' http://127.0.0.1:${route}/p/9/x`),
      ].join('\n'),
    );
    expect(output).toContain('allowed: A answered GET /hello 200');
    expect(output).toContain('tunnel: A answered GET /tunnelled 200');
    expect(output).toMatch(/refused: Refused by the Ribosome sandbox: .*not in sandbox.network.allow\n? 403/);
    expect(output).toMatch(/refused-tunnel: curl: \(56\) CONNECT tunnel failed, response 403/);
    expect(output).not.toContain('B answered');
    expect(output).toMatch(/direct: curl: \(7\)[^\n]*Couldn't connect to server\n 000 exit=7/);
    expect(output).toContain('route: route answered GET /t/cred/p/1/v1/models 200');
    expect(output).toContain('origin: route answered GET /t/cred/p/1/v1/messages 200');
    expect(output).toMatch(
      /other-route: Refused by the Ribosome sandbox: GET [^\n]*\/p\/9\/x: outside the LLM route's base path\n 403/,
    );
    expect(denied).toEqual([
      {
        kind: 'request',
        target: `127.0.0.1:${b}`,
        method: 'GET',
        path: '/secret',
        reason: 'not in sandbox.network.allow',
      },
      { kind: 'connect', target: `127.0.0.1:${b}`, reason: 'not in sandbox.network.allow' },
      {
        kind: 'request',
        target: `127.0.0.1:${route}`,
        method: 'GET',
        path: '/p/9/x',
        reason: "outside the LLM route's base path",
      },
    ]);
  });
});
