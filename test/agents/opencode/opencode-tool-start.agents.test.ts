/**
 * The real opencode under `ribosome run` against the scripted provider: a tool call shows while it
 * runs (Ribosome's tool-start plugin), so a command longer than `stallTimeoutMs` is not a stall
 * (trial 18 M2: opencode's own JSON prints a call only once it has ended).
 */
import { expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { commandsIn } from '../../helpers/mounts.ts';
import { waitFor } from '../../helpers/processes.ts';

/** Longer than an opencode start on a loaded machine (tens of seconds of silence). */
const STALL_MS = 30_000;
/** The command outlasts the stall limit. */
const SLEEP_S = 45;

const PLAN = `name: opencode-long-tool
agent: opencode
model: claude-sonnet-4-5
defaults: { stallTimeoutMs: ${STALL_MS} }
codons:
  - id: long
    prompt: "LONG-TOOL: run a long command."
`;

const SCRIPT = `tracks:
  - name: long
    match: { firstUser: LONG-TOOL }
    turns:
      - content:
          - tool_use: { name: bash, input: { command: "sleep ${SLEEP_S}; echo slept", description: Sleep, timeout: 600000 } }
      - content: [{ text: Slept. }]
turns: []
whenExhausted: { error: { status: 400, message: "no track answers this request" } }
`;

describeWithClis('opencode: a tool call is open while it runs (e2e)', [cliBinary(OPENCODE)], () => {
  const { serve } = e2eResources();

  it('shows the call as it starts, and a command longer than stallTimeoutMs completes', {
    timeout: 300_000,
  }, async () => {
    const { client, root } = await serve(PLAN, SCRIPT);
    // Without the call shown, the codon stalls first.
    const toolUse = await client.waitFor(
      (e) => (e.type === 'assistant.action' && e.data.action === 'tool_use') || e.type === 'codon.completed',
      200_000,
      'the tool_use',
    );
    expect(toolUse).toMatchObject({ type: 'assistant.action', data: { codonId: 'long', toolName: 'bash' } });
    // Published as the command starts (it runs after), not with its result.
    await waitFor(() => commandsIn(root, `sleep ${SLEEP_S}`).length > 0, 'the command running', 30_000);
    const before = await client.syncHistory();
    expect(before.filter((e) => e.type === 'tool.result')).toEqual([]);
    const completed = await client.next('codon.completed', () => true, 200_000);
    expect(completed.data).toMatchObject({ codonId: 'long', success: true });
    const history = await client.syncHistory();
    const results = history.flatMap((e) => (e.type === 'tool.result' ? [e.data] : []));
    expect(results).toEqual([
      expect.objectContaining({ toolName: 'bash', isError: false, result: 'slept\n' }),
    ]);
  });
});
