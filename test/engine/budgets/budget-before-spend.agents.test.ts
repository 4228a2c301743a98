/**
 * With the proxy on, a cost limit holds for every agent CLI (issue 30): each one's requests are
 * checked before they go out, so the codon stops for budget with its spend at or under the limit.
 * Every scripted answer costs the same (USAGE); its output is under the least output limit the budget
 * caps a request to, so no answer reports more than its request allowed, as a provider's never does.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEventOf } from '../../../src/core/protocol/index.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { killAll, ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

const LIMIT = 0.6;
const USAGE = '{ input_tokens: 5000, output_tokens: 1000 }';

/** `shell(n)`: the agent's own shell tool call running `echo step-n` (each one different: Gemini CLI ends a loop of the same call). */
type Spec = { agent: string; model: string; shell: (n: number) => string; side?: string };

const SPECS: Spec[] = [
  {
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    shell: (n) => `{ name: Bash, input: { command: "echo step-${n}" } }`,
    // Claude Code's session title and tool-less helper requests.
    side: `  - name: title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Scripted"}' }] }
  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
`,
  },
  {
    agent: 'codex',
    model: 'gpt-6.2-sol',
    shell: (n) => `{ name: exec_command, input: { cmd: "echo step-${n}" } }`,
  },
  {
    agent: 'gemini',
    model: 'gemini-2.5-pro',
    shell: (n) => `{ name: run_shell_command, input: { command: "echo step-${n}" } }`,
    // Its loop check after 30 turns of one prompt, answered (docs/operations.md#writing-a-script-for-an-agent).
    side: `  - name: loop-check
    match: { api: gemini, tools: false }
    turns: []
    whenExhausted: { content: [{ text: '{"unproductive_state_analysis": "Each step differs.", "unproductive_state_confidence": 0}' }] }
`,
  },
  {
    agent: 'opencode',
    model: 'claude-sonnet-4-5',
    shell: (n) => `{ name: bash, input: { command: "echo step-${n}", description: Step } }`,
  },
];

const plan = (spec: Spec) =>
  `name: spend\nagent: ${spec.agent}\nmodel: ${spec.model}\ncodons:\n  - id: spend\n    prompt: "SPEND: keep going."\n`;
const script = (spec: Spec) => `tracks:
${spec.side ?? ''}  - name: spend
    match: { firstUser: SPEND }
    turns:
${Array.from(
  { length: 200 },
  (_, n) => `      - content:
          - tool_use: ${spec.shell(n)}
        usage: ${USAGE}
`,
).join('')}turns: []
`;

const dirs: Array<{ remove(): void }> = [];

/** One agent's run: its codon's end and the run's spend once it idles. */
async function run(
  spec: Spec,
): Promise<{ agent: string; completed: ServerEventOf<'codon.completed'>; cost: number }> {
  const dir = tempDir(`ribosome-spend-${spec.agent}-`);
  dirs.push(dir);
  const files = writePlanAndScript(dir.path, plan(spec), script(spec));
  const server = await startServer(
    files.plan,
    join(dir.path, 'exec'),
    ['--scripted-provider', files.script, '--proxy', '--max-cost', String(LIMIT)],
    60_000,
    { RIBOSOME_CODEX_MAX_RETRIES: '0', RIBOSOME_GEMINI_MAX_ATTEMPTS: '1' },
  );
  const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite', sendPreviousEvents: true });
  try {
    const seen = (e: { type: string; data: unknown }) =>
      e.type === 'server.idle' && (e as ServerEventOf<'server.idle'>).data.lastEnded?.codonId === 'spend';
    if (![...client.handshake.eventHistory, ...client.received].some(seen)) {
      await client.waitFor(seen, 400_000, `${spec.agent}: the codon's end`);
    }
    const history = await client.syncHistory();
    const completed = history.findLast((e) => e.type === 'codon.completed');
    const snapshot = history.findLast((e) => e.type === 'state.snapshot');
    if (completed?.type !== 'codon.completed' || snapshot?.type !== 'state.snapshot') {
      throw new Error(`${spec.agent}: no codon.completed or state.snapshot`);
    }
    return { agent: spec.agent, completed, cost: snapshot.data.budgets?.[0]?.spent.costUsd ?? Number.NaN };
  } finally {
    await client.close();
  }
}

describeWithClis(
  'budgets with the proxy, for every agent CLI (agents)',
  [join(ROOT, 'node_modules/.bin/claude'), cliBinary(CODEX), cliBinary(GEMINI_CLI), cliBinary(OPENCODE)],
  () => {
    it('each codon stops for budget with its spend at or under --max-cost', {
      timeout: 480_000,
    }, async () => {
      try {
        const results = await Promise.all(SPECS.map(run));
        for (const { agent, completed, cost } of results) {
          expect({
            agent,
            success: completed.data.success,
            reason: completed.data.failureReason,
          }).toMatchObject({
            agent,
            success: false,
            reason: {
              type: 'budget',
              message: expect.stringMatching(/^plan budget exhausted: maxCostUsd 0\.60, /),
            },
          });
          // Several answers were paid for before the stop, and the stop came before the limit.
          expect({ agent, cost, paid: cost > 0.05 }).toEqual({ agent, cost, paid: true });
          expect({ agent, cost: cost <= LIMIT }).toEqual({ agent, cost: true });
          // What the codon records is what the budget counted: an answer the proxy metered and the
          // stopped agent never reported is in it (trial 30: Claude Code's $0.0270 against 0.0420).
          expect({ agent, recorded: completed.data.cost.toFixed(4) }).toEqual({
            agent,
            recorded: cost.toFixed(4),
          });
        }
      } finally {
        killAll();
        for (const dir of dirs.splice(0)) dir.remove();
      }
    });
  },
);
