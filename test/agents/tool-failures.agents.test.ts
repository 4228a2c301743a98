/**
 * Every agent's failed tool calls are in the codon's events, each a failed `tool.result` with the
 * agent's error (issue 30 M2): a file edit whose old text is not in the file, and a shell command that
 * exits 3 (Gemini CLI's stream calls it a success; its session file has the exit code), under `ribosome run`
 * with the scripted provider. Codex's `exec --json` prints nothing of a patch it refused before it ran
 * (only its rollout file holds the error: src/agents/codex/codex-record.ts); Claude Code, Gemini CLI,
 * opencode and the built-in agent print their failures in their streams themselves.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CLAUDE_CODE } from '../../src/agents/claude-code/claude-binary.ts';
import { cliBinary } from '../../src/agents/cli-binary.ts';
import { CODEX } from '../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../src/agents/gemini/gemini-cli.ts';
import { OPENCODE } from '../../src/agents/opencode/opencode-cli.ts';
import { describeWithClis } from '../helpers/agent-clis.ts';
import { journalRows, killAll, runToEnd, tempDir } from '../helpers/server-process.ts';

type Case = {
  agent: string;
  model: string;
  binaries: string[];
  /** The failing edit, as the script's tool_use (YAML flow). */
  edit: string;
  /** The tool name its call and result carry in the events. */
  toolName: string;
  /** The agent's words for the failure. */
  error: RegExp;
  /** A shell command that exits 3, as the script's tool_use (YAML flow), and its tool's name. */
  shell: string;
  shellName: string;
  /** Tracks of the agent's side requests (Claude Code's title); tool-less ones get "OK.". */
  side?: string;
};

const CASES: Case[] = [
  {
    agent: 'codex',
    // Codex's default model: apply_patch is a freeform tool in its additional_tools.
    model: 'gpt-6.2-sol',
    binaries: [cliBinary(CODEX)],
    edit: `{ name: apply_patch, input: "*** Begin Patch\\n*** Update File: f.txt\\n@@\\n no such line\\n+there\\n*** End Patch" }`,
    toolName: 'apply_patch',
    error: /^apply_patch verification failed: Failed to find expected lines in .*f\.txt/,
    shell: '{ name: exec_command, input: { cmd: "echo out; exit 3" } }',
    shellName: 'command_execution',
  },
  {
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    binaries: [cliBinary(CLAUDE_CODE)],
    // Without a Read first, Claude Code refuses the edit.
    edit: '{ name: Edit, input: { file_path: f.txt, old_string: "no such line", new_string: there } }',
    toolName: 'Edit',
    error: /File has not been read yet/,
    shell: '{ name: Bash, input: { command: "echo out; exit 3" } }',
    shellName: 'Bash',
    side: `  - name: claude-code-title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Failure"}' }] }
`,
  },
  {
    agent: 'gemini',
    model: 'gemini-2.5-flash',
    binaries: [cliBinary(GEMINI_CLI)],
    edit: '{ name: replace, input: { file_path: f.txt, instruction: Edit, old_string: "no such line", new_string: there } }',
    toolName: 'replace',
    error: /Could not find an exact match for old_string/,
    // Its stream calls this a success: the exit code is in its session file only.
    shell: '{ name: run_shell_command, input: { command: "echo out; exit 3", description: Run it } }',
    shellName: 'run_shell_command',
  },
  {
    agent: 'opencode',
    model: 'claude-sonnet-4-5',
    binaries: [cliBinary(OPENCODE)],
    edit: '{ name: edit, input: { filePath: f.txt, oldString: "no such line", newString: there } }',
    toolName: 'edit',
    error: /Could not find oldString in the file/,
    shell: '{ name: bash, input: { command: "echo out; exit 3", description: Run it } }',
    shellName: 'bash',
  },
  {
    agent: 'builtin',
    model: 'claude-sonnet-4-5',
    binaries: [],
    edit: '{ name: Edit, input: { file_path: f.txt, old_string: "no such line", new_string: there } }',
    toolName: 'Edit',
    error: /old_string was not found in the file/,
    shell: '{ name: Bash, input: { command: "echo out; exit 3" } }',
    shellName: 'Bash',
  },
];

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) dir.remove();
});

for (const c of CASES) {
  describeWithClis(`${c.agent}: a failed edit is a failed tool call in the events`, c.binaries, () => {
    it('shows the call and its error, then the codon goes on', async () => {
      const dir = tempDir(`ribosome-failed-edit-${c.agent}-`);
      dirs.push(dir);
      const plan = join(dir.path, 'plan.yaml');
      const script = join(dir.path, 'script.yaml');
      const exec = join(dir.path, 'exec');
      writeFileSync(
        plan,
        `name: failed-edit
agent: ${c.agent}
model: ${c.model}
codons:
  - id: one
    prompt: "FAILED-EDIT: edit f.txt."
`,
      );
      writeFileSync(
        script,
        `tracks:
${c.side ?? ''}  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
  - name: start
    match: { firstUser: FAILED-EDIT, tools: true }
    turns:
      - content:
          - tool_use: ${c.edit}
      - content:
          - tool_use: ${c.shell}
      - content: [{ text: Patched f.txt successfully. }]
turns: []
whenExhausted: { error: { status: 400, message: "no track of the script answers this request" } }
`,
      );
      // The file the edit fails on, in the agent root the run starts from.
      mkdirSync(join(exec, 'agentRoot'), { recursive: true });
      writeFileSync(join(exec, 'agentRoot', 'f.txt'), 'hello\n');
      const { code, stderr } = await runToEnd(plan, exec, script, [], { timeoutMs: 120_000 });
      expect(code, stderr).toBe(0);
      const rows = journalRows(exec);
      const call = rows.find((r) => r.type === 'assistant.action' && r.data.toolName === c.toolName);
      expect(call, `a ${c.toolName} call in the events`).toBeDefined();
      const result = rows.find((r) => r.type === 'tool.result' && r.data.toolName === c.toolName);
      expect(result?.data).toMatchObject({ isError: true, result: expect.stringMatching(c.error) });
      if (call?.data.toolUseId !== undefined) expect(result?.data.toolUseId).toBe(call.data.toolUseId);
      // A shell command that exits non-zero is a failed call too, whatever the CLI's stream says.
      const shell = rows.find((r) => r.type === 'tool.result' && r.data.toolName === c.shellName);
      expect(shell?.data, `${c.shellName}'s result`).toMatchObject({
        isError: true,
        result: expect.stringMatching(/out/),
      });
      const texts = rows.filter((r) => r.type === 'assistant.action' && r.data.action === 'message');
      expect(texts.map((r) => r.data.content)).toContain('Patched f.txt successfully.');
    }, 150_000);
  });
}
