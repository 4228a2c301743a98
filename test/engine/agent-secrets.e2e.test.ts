import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePlanAndScript } from '../helpers/plans.ts';
import { journalRows, killAll, runToEnd, tempDir } from '../helpers/server-process.ts';

/**
 * Issue 29's probe, with the sandbox off: the server holds another provider's key, the access token
 * and a sentinel's key. The built-in agent's environment has none of them; the server's own
 * environment, read through /proc, and a file holding them, do reach its tool results, and then no
 * journaled event, no stored transition and no line of the server log holds them: `[redacted:<NAME>]`
 * stands in their place.
 */

const OPENAI = `sk-planted-openai-${process.pid}-0123456789`;
const TOKEN = `planted-token-${process.pid}-abcdefghij`;
const SENTINEL = `planted-sentinel-${process.pid}-klmnopqrst`;
const SECRETS = { OPENAI_API_KEY: OPENAI, RIBOSOME_TOKEN: TOKEN, SENTINEL_KEY: SENTINEL };

const leaked = (text: string) => Object.values(SECRETS).filter((value) => text.includes(value));

const bash = (command: string) => `  - content:
      - tool_use: { name: Bash, input: { command: ${JSON.stringify(command)} } }
`;

afterAll(killAll);

describe('the server secrets, with the sandbox off', () => {
  it('are not in the agent environment, and what the agent reads of them is redacted before it is journaled', async () => {
    const t = tempDir();
    try {
      const plan = `name: secrets
agent: builtin
codons:
  - id: one
    prompt: Do one.
    rigSetup:
      - copy: { from: planted.txt, to: planted.txt }
      - run: cat planted.txt
    verify:
      - run: cat planted.txt
    sentinels:
      - id: watch
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        provider: { baseUrl: "https://gateway.invalid", apiKeyEnv: SENTINEL_KEY }
`;
      // The agent's own environment, as its Bash sees it and as /proc shows it; then the server's,
      // through /proc (its parent's parent); then the planted file.
      const script = `tracks:
  - name: watch
    match: { tools: false }
    whenExhausted: { content: [{ text: "Fine." }] }
turns:
${bash("env > agent-env.txt; tr '\\0' '\\n' < /proc/$PPID/environ > agent-proc-env.txt; echo done")}${bash("tr '\\0' '\\n' < /proc/$(awk '{print $4}' /proc/$PPID/stat)/environ")}${bash('cat planted.txt')}  - content:
      - text: Done.
`;
      const paths = writePlanAndScript(t.path, plan, script);
      writeFileSync(
        join(t.path, 'planted.txt'),
        Object.entries(SECRETS)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      );
      const exec = join(t.path, 'exec');
      const run = await runToEnd(paths.plan, exec, paths.script, [], { env: SECRETS });
      expect(run.code, run.stderr).toBe(0);

      // The agent's environment was built for it: none of the server's secrets, by value or by name.
      for (const file of ['agent-env.txt', 'agent-proc-env.txt']) {
        const env = readFileSync(join(exec, 'agentRoot', file), 'utf8');
        expect(env, file).toContain('ANTHROPIC_BASE_URL=');
        expect(leaked(env), file).toEqual([]);
        expect(env, file).not.toMatch(/^(OPENAI_API_KEY|RIBOSOME_TOKEN|SENTINEL_KEY)=/m);
      }

      // No journaled event holds a secret; each one the agent read shows as its marker.
      const events = journalRows(exec);
      expect(events.filter((e) => leaked(e.json).length > 0).map((e) => e.type)).toEqual([]);
      const results = events.filter((e) => e.type === 'tool.result').map((e) => String(e.data.result));
      const serverEnv = results.find((r) => r.includes('OPENAI_API_KEY='));
      expect(serverEnv).toContain('OPENAI_API_KEY=[redacted:OPENAI_API_KEY]');
      expect(serverEnv).toContain('RIBOSOME_TOKEN=[redacted:RIBOSOME_TOKEN]');
      expect(serverEnv).toContain('SENTINEL_KEY=[redacted:SENTINEL_KEY]');
      expect(results.at(-1)?.trim()).toBe(
        'OPENAI_API_KEY=[redacted:OPENAI_API_KEY]\nRIBOSOME_TOKEN=[redacted:RIBOSOME_TOKEN]\nSENTINEL_KEY=[redacted:SENTINEL_KEY]',
      );
      // The gate's streamed output and the rig step's lines too; the sentinel was prompted with them.
      const gate = events.filter((e) => e.type === 'verify.output').map((e) => String(e.data.text));
      expect(gate.join('')).toContain('SENTINEL_KEY=[redacted:SENTINEL_KEY]');
      const rig = events.filter((e) => e.type === 'info').map((e) => String(e.data.message));
      expect(rig.some((m) => m.includes('OPENAI_API_KEY=[redacted:OPENAI_API_KEY]'))).toBe(true);
      expect(events.some((e) => e.type === 'sentinel.output')).toBe(true);

      // Nor does the server log, which keeps the rig step's output.
      expect(leaked(readFileSync(join(exec, '.ribosome', 'logs', 'server.log'), 'utf8'))).toEqual([]);
      expect(leaked(run.stdout + run.stderr)).toEqual([]);
    } finally {
      t.remove();
    }
  });
});
