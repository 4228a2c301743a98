/**
 * A stdio MCP server in the sandbox (docs/mcp.md#how-each-agent-gets-them): Claude Code with
 * `sandbox: on` starts the SDK test server itself, so the server runs inside the agent's sandbox, in its
 * pid namespace, writing its mark in the agent root. Without bubblewrap and socat the test is skipped
 * with the reason (in CI it fails instead).
 */
import { readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { sandboxSupport } from '../../helpers/sandbox-support.ts';
import { journalRows, killAll, runCli, tempDir } from '../../helpers/server-process.ts';
import { MARK_SERVER, marksIn } from './mcp-matrix.ts';

const TIMEOUT = 300_000;
const support = sandboxSupport();
if (!support.ok && !process.env.CI) console.log(`skipping the MCP server in the sandbox: ${support.why}`);

describeWithClis('MCP servers in the sandbox: claude-code (agents)', [claudeBinary()], () => {
  const temps: Array<{ remove(): void }> = [];
  let provider: MockProvider | undefined;
  afterEach(async () => {
    killAll();
    await provider?.stop();
    provider = undefined;
  });
  afterAll(() => {
    for (const t of temps.splice(0)) t.remove();
  });

  it.skipIf(!support.ok && !process.env.CI)(
    "a stdio server runs inside the agent's sandbox: its mark in the agent root, its pid namespace not the host's",
    { timeout: TIMEOUT },
    async () => {
      if (!support.ok) throw new Error(`sandbox on: ${support.why}`);
      const made = tempDir();
      temps.push(made);
      const exec = join(made.path, 'exec');
      const planFile = join(made.path, 'plan.yaml');
      // The server's mark file is its default, mcp-marks.txt in its working directory: the agent root.
      writeFileSync(
        planFile,
        `name: mcp-sandbox
agent: claude-code
model: claude-sonnet-4-5
sandbox: on
mcpServers:
  marker: { command: node, args: [${JSON.stringify(MARK_SERVER)}] }
codons:
  - id: mark
    prompt: "MCP-SANDBOX: leave a mark."
`,
      );
      provider = await startMockProvider({
        script: {
          tracks: [
            {
              name: 'tool-less',
              match: { tools: false },
              turns: [],
              whenExhausted: { content: [{ text: 'OK.' }] },
            },
          ],
          turns: [
            {
              content: [
                { mcp_tool: { server: 'marker', tool: 'leave_mark', input: { text: 'from-the-sandbox' } } },
              ],
            },
            { content: [{ text: 'Marked.' }] },
          ],
        },
      });
      const proc = runCli(
        [
          'run',
          planFile,
          '--headless',
          '--exit-when-done',
          '--execution',
          exec,
          '--provider-base-url',
          provider.url,
        ],
        { env: { ANTHROPIC_API_KEY: 'test-key' } },
      );
      const timer = setTimeout(() => proc.kill('SIGKILL'), TIMEOUT - 30_000);
      const { code } = await proc.exited;
      clearTimeout(timer);
      expect(code, proc.stderr()).toBe(0);
      const completed = journalRows(exec).find((r) => r.type === 'codon.completed');
      expect(completed?.data).toMatchObject({ codonId: 'mark', success: true });
      const root = realpathSync(join(exec, 'agentRoot'));
      const [mark, ...more] = marksIn(join(root, 'mcp-marks.txt'));
      expect(more).toEqual([]);
      expect(mark).toMatchObject({ text: 'from-the-sandbox', cwd: root });
      expect(mark?.pidNs).toMatch(/^pid:\[\d+\]$/);
      expect(mark?.pidNs).not.toBe(readlinkSync('/proc/self/ns/pid'));
    },
  );
});
