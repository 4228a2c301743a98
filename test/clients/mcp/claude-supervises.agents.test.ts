/**
 * An agent supervising Ribosome (docs/mcp.md): a codon run by the real Claude Code, on the scripted
 * provider, gets `ribosome mcp` through its plan's `mcpServers` and uses it to start another plan,
 * wait for it, and read its status. The inner plan runs for real (the built-in agent on a scripted
 * provider of its own), started from inside Claude Code's sandbox where the machine has one; what
 * Claude Code was answered is in the outer run's journal.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { BIN, journalRows, killAll, ROOT, runCli, tempDir } from '../../helpers/server-process.ts';

/** The inner plan: two codons, the first watched by the demo's narrator (an LLM call of the inner run's own). */
const INNER_PLAN = `name: inner
agent: builtin
sentinels:
  narrator: { file: ${JSON.stringify(join(ROOT, 'examples/sentinels/narrator.yaml'))} }
codons:
  - id: first
    prompt: INNER-FIRST write first.txt
    sentinels: [narrator]
  - id: second
    prompt: INNER-SECOND write second.txt
`;

const innerTrack = (name: string, file: string) => `  - name: ${name}
    match: { firstUser: INNER-${name.toUpperCase()} }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: ${file}, content: "${name}" } }
      - content: [{ text: Wrote ${file}. }]
`;
const NARRATOR = `  - name: narrator
    match: { system: "You narrate a coding agent" }
    turns: []
    whenExhausted: { content: [{ text: It wrote first.txt. }] }
`;
const INNER_SCRIPT = `tracks:\n${NARRATOR}${innerTrack('first', 'first.txt')}${innerTrack('second', 'second.txt')}turns: []\n`;

/** Claude Code's turns: start the inner plan, wait for it, read its status, stop its server. */
const outerScript = (plan: string, execution: string, script: string) => {
  const call = (tool: string, input: Record<string, unknown>) =>
    `      - content:\n          - mcp_tool: { server: ribosome, tool: ${tool}, input: ${JSON.stringify(input)} }\n`;
  return `tracks:
  - name: title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Supervise"}' }] }
  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
  - name: supervise
    match: { firstUser: SUPERVISE }
    turns:
${call('start_plan', { plan, execution, scriptedProvider: script })}${call('wait', { execution, timeoutSeconds: 50 })}${call('status', { execution })}${call('stop_server', { execution })}      - content: [{ text: The inner plan ran both codons. }]
turns: []
whenExhausted: { error: { status: 400, message: no track answers this request } }
`;
};

describeWithClis('an agent supervising Ribosome through ribosome mcp (agents)', [claudeBinary()], () => {
  const dir = tempDir('ribosome-supervise-');
  afterAll(() => {
    killAll();
    dir.remove();
  });

  it('Claude Code starts a plan with ribosome mcp, waits for it and reads its status', {
    timeout: 300_000,
  }, async () => {
    // The inner plan's files, where the supervising agent's sandbox lets it (and what it starts) write.
    const innerDir = join(dir.path, 'inner');
    mkdirSync(innerDir);
    const innerPlan = join(innerDir, 'inner.yaml');
    const innerScript = join(innerDir, 'inner-script.yaml');
    const innerExec = join(innerDir, 'inner-exec');
    writeFileSync(innerPlan, INNER_PLAN);
    writeFileSync(innerScript, INNER_SCRIPT);
    const outerScriptFile = join(dir.path, 'outer-script.yaml');
    writeFileSync(outerScriptFile, outerScript(innerPlan, innerExec, innerScript));
    const outerPlan = join(dir.path, 'outer.yaml');
    writeFileSync(
      outerPlan,
      `name: supervise
agent: claude-code
sandbox: { allowWrite: [${JSON.stringify(innerDir)}] }
mcpServers:
  ribosome: { command: ${JSON.stringify(BIN)}, args: [mcp], cwd: ${JSON.stringify(innerDir)} }
codons:
  - id: supervise
    prompt: SUPERVISE run inner.yaml with ribosome and tell me how it went.
`,
    );
    const outerExec = join(dir.path, 'outer-exec');
    const run = runCli([
      'run',
      outerPlan,
      '--headless',
      '--exit-when-done',
      '--execution',
      outerExec,
      '--scripted-provider',
      outerScriptFile,
    ]);
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(0);

    // What Claude Code was answered by each of ribosome mcp's tools.
    const results = journalRows(outerExec)
      .filter((r) => r.type === 'tool.result' && r.data.mcpServer === 'ribosome')
      .map((r) => ({ tool: r.data.mcpTool, result: String(r.data.result), isError: r.data.isError }));
    expect(results.map((r) => r.tool)).toEqual(['start_plan', 'wait', 'status', 'stop_server']);
    expect(
      results.every((r) => r.isError === false),
      JSON.stringify(results, null, 2),
    ).toBe(true);
    expect(results[0]?.result).toContain('started plan inner (2 codons)');
    expect(results[2]?.result).toMatch(/first\W+completed/);
    expect(results[2]?.result).toMatch(/second\W+completed/);

    // The inner plan ran for real: its codons' files, its journal.
    expect(readFileSync(join(innerExec, 'agentRoot/first.txt'), 'utf8')).toBe('first');
    expect(existsSync(join(innerExec, 'agentRoot/second.txt'))).toBe(true);
    const inner = journalRows(innerExec).filter((r) => r.type === 'codon.completed');
    expect(inner.map((r) => [r.data.codonId, r.data.success])).toEqual([
      ['first', true],
      ['second', true],
    ]);
    // Its sentinel reached the inner run's own provider (on loopback, past the sandbox's gate).
    const said = journalRows(innerExec).filter((r) => r.type.startsWith('sentinel.'));
    expect(said.filter((r) => r.type === 'sentinel.error')).toEqual([]);
    expect(said.some((r) => r.type === 'sentinel.output')).toBe(true);
  });
});
