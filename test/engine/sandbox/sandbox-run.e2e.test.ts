/**
 * The sandbox through a real server, the built-in agent and the scripted provider (docs/agents.md#the-sandbox):
 * with `sandbox: on`, codon one writes in the agent root (checkpointed, it succeeds) and fails to touch
 * the execution's .ribosome, to read a planted ~/.ssh key, and to reach a loopback server it was not
 * allowed (journaled as sandbox.denied); codon two then runs as usual.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { sandboxSupport } from '../../../src/platform/sandbox/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writeTurns } from '../../helpers/plans.ts';

const support = sandboxSupport();
const runs = support.ok || process.env.CI === 'true';
if (!runs)
  console.log(
    `skipped: the sandbox e2e test needs ${support.ok ? '' : support.missing.join(' and ')} (${support.ok ? '' : support.install})`,
  );

const { serve } = e2eResources();
// Not under /tmp: the sandbox's private /tmp would hide it whatever the list of hidden secrets says.
const home = { path: mkdtempSync('/var/tmp/ribosome-home-') };
afterAll(() => rmSync(home.path, { recursive: true, force: true }));

const tool = (name: string, input: Record<string, unknown>) =>
  `      - content:\n          - tool_use: ${JSON.stringify({ name, input })}\n`;
const bash = (command: string) => tool('Bash', { command });

describe.runIf(runs)('the sandbox (e2e)', () => {
  it('keeps codon one in its agent root, away from history, secrets and other hosts; codon two runs after it', async () => {
    mkdirSync(join(home.path, '.ssh'));
    writeFileSync(join(home.path, '.ssh', 'id_ed25519'), 'PLANTED-KEY-0451\n');
    let reached = 0;
    const other = createServer((_req, res) => {
      reached += 1;
      res.end('forbidden fruit\n');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    // A service's Unix socket on the host, where services keep theirs (/run): no network needed.
    let spoken = 0;
    const socketPath = `/run/ribosome-e2e-${process.pid}.sock`;
    const service = createNetServer((socket) => {
      spoken += 1;
      socket.end('HOST-SERVICE\n');
    });
    await new Promise<void>((resolve, reject) => {
      service.once('error', reject);
      service.listen(socketPath, resolve);
    });
    try {
      const plan = `name: t
agent: builtin
sandbox: { mode: on, network: { allow: [] } }
codons:
  - id: one
    prompt: Do one.
  - id: two
    prompt: Do two.
`;
      const script = `tracks:
  - name: one
    match: { firstUser: "Do one." }
    turns:
${tool('Write', { file_path: 'a.txt', content: 'A' })}${bash('touch ../.ribosome/x; echo touched=$?')}${bash('cat ~/.ssh/id_ed25519; echo read=$?')}${bash(`curl -s -m 10 http://127.0.0.1:${otherPort}/secret; echo curl=$?`)}${bash(`echo hello | socat - UNIX-CONNECT:${socketPath}; echo sock=$?`)}      - content: [{ text: "Done." }]
  - name: two
    match: { firstUser: "Do two." }
    turns:
${writeTurns('b.txt', 'B').replace(/^/gm, '    ')}
`;
      const { client, exec, root } = await serve(plan, script, [], { HOME: home.path });
      const idle = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
      if (!(await client.syncHistory()).some(idle))
        await client.waitFor(idle, 60_000, 'all codons completed');
      const history = await client.syncHistory();

      const started = history.flatMap((e) => (e.type === 'codon.started' ? [e.data] : []));
      expect(started.map((s) => [s.codonId, s.sandboxed])).toEqual([
        ['one', true],
        ['two', true],
      ]);
      const completed = history.flatMap((e) => (e.type === 'codon.completed' ? [e.data] : []));
      expect(completed.map((c) => [c.codonId, c.success])).toEqual([
        ['one', true],
        ['two', true],
      ]);
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A');
      expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('B');

      // The history stayed out of reach, the key unread, the other server unreached.
      expect(existsSync(join(exec, '.ribosome', 'x'))).toBe(false);
      const results = history.flatMap((e) =>
        e.type === 'tool.result' && e.data.toolName === 'Bash' ? [e.data.result] : [],
      );
      expect(results[0]).not.toContain('touched=0');
      expect(results[1]).not.toContain('read=0');
      expect(results[2]).not.toContain('forbidden fruit');
      expect(results[3]).not.toContain('HOST-SERVICE');
      expect(results[3]).toContain('sock=1');
      expect(spoken).toBe(0);
      expect(JSON.stringify(history)).not.toContain('PLANTED-KEY-0451');
      expect(reached).toBe(0);

      const denied = history.flatMap((e) => (e.type === 'sandbox.denied' ? [e.data] : []));
      expect(denied).toEqual([
        expect.objectContaining({ codonId: 'one', target: `127.0.0.1:${otherPort}`, count: 1 }),
      ]);
    } finally {
      other.close();
      service.close();
    }
  }, 120_000);

  it('runs rig steps and gates inside the sandbox with sandbox.rig and sandbox.gates, and as the user without', async () => {
    mkdirSync(join(home.path, '.ssh'), { recursive: true });
    writeFileSync(join(home.path, '.ssh', 'id_ed25519'), 'PLANTED-KEY-0451\n');
    // A rig step that tries the history, a gate that passes only when the key cannot be read.
    const unreadable = 'if cat ~/.ssh/id_ed25519; then exit 1; fi';
    const plan = `name: t
agent: builtin
codons:
  - id: inside
    prompt: Do one.
    sandbox: { mode: on, rig: true, gates: true }
    rigSetup:
      - run: "touch ../.ribosome/rig-x; echo rig=$? > rig.txt"
    verify:
      - run: "${unreadable}"
  - id: outside
    prompt: Do two.
    sandbox: on
    rigSetup:
      - run: "touch ../.ribosome/rig-y; echo rig=$? > rig2.txt"
    verify:
      - run: "cat ~/.ssh/id_ed25519"
`;
    const script = `turns:\n  - content: [{ text: "Done." }]\n`;
    const { client, exec, root } = await serve(plan, script, [], { HOME: home.path });
    const idle = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
    if (!(await client.syncHistory()).some(idle)) await client.waitFor(idle, 60_000, 'all codons completed');
    const history = await client.syncHistory();
    const completed = history.flatMap((e) => (e.type === 'codon.completed' ? [e.data] : []));
    expect(completed.map((c) => [c.codonId, c.success])).toEqual([
      ['inside', true],
      ['outside', true],
    ]);
    // Inside: the rig step could not write the history; the gate could not read the key.
    expect(readFileSync(join(root, 'rig.txt'), 'utf8')).not.toBe('rig=0\n');
    expect(existsSync(join(exec, '.ribosome', 'rig-x'))).toBe(false);
    // Outside (the default): the user's own commands run with the user's rights.
    expect(readFileSync(join(root, 'rig2.txt'), 'utf8')).toBe('rig=0\n');
    expect(existsSync(join(exec, '.ribosome', 'rig-y'))).toBe(true);
    const gates = history.flatMap((e) => (e.type === 'verify.completed' ? [e.data] : []));
    expect(gates.map((g) => [g.codonId, g.passed])).toEqual([
      ['inside', true],
      ['outside', true],
    ]);
  }, 120_000);
});
