/**
 * What a Codex or Gemini CLI codon costs (trial 18 H2, M3): these CLIs report tokens, no cost, and only
 * at a turn's end; the engine prices them, and reads a turn cut short (a stop, a server killed) from
 * the agent's session record. Every response of the scripts below reports the same usage,
 * so a codon's cost is its number of responses times that usage's price, whatever the engine did.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliBinary } from '../../src/agents/cli-binary.ts';
import { CODEX } from '../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../src/agents/gemini/gemini-cli.ts';
import { costOf } from '../../src/llm/pricing.ts';
import { describeWithClis } from '../helpers/agent-clis.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { commandsIn } from '../helpers/mounts.ts';
import { writePlanAndScript } from '../helpers/plans.ts';
import { waitFor } from '../helpers/processes.ts';
import { journalRows, startServer, tempDir } from '../helpers/server-process.ts';

const TIMEOUT = 300_000;
const WAIT = 240_000;
/** Every scripted response's usage. */
const USAGE = { input_tokens: 10_000, output_tokens: 1_000 };

const PROMPTS = {
  wait: 'COST-WAIT: wait until the file cost-go exists.',
  message: 'COST-MESSAGE: also write message.txt.',
  sleep: 'COST-SLEEP: run a long command.',
};

type Spec = {
  agent: 'codex' | 'gemini';
  model: string;
  binary: string;
  /** A shell tool call of the agent's own. */
  shell: (command: string) => string;
  env: NodeJS.ProcessEnv;
};

const SPECS: Spec[] = [
  {
    agent: 'codex',
    model: 'gpt-6.2-sol',
    binary: cliBinary(CODEX),
    shell: (cmd) => `{ name: exec_command, input: { cmd: ${JSON.stringify(cmd)}, yield_time_ms: 600000 } }`,
    env: { RIBOSOME_CODEX_MAX_RETRIES: '0' },
  },
  {
    agent: 'gemini',
    model: 'gemini-2.5-flash',
    binary: cliBinary(GEMINI_CLI),
    shell: (command) => `{ name: run_shell_command, input: { command: ${JSON.stringify(command)} } }`,
    env: { RIBOSOME_GEMINI_MAX_ATTEMPTS: '1' },
  },
];

const usage = `usage: { input_tokens: ${USAGE.input_tokens}, output_tokens: ${USAGE.output_tokens} }`;
const script = (spec: Spec) => `tracks:
  - name: message
    match: { lastUser: COST-MESSAGE }
    turns:
      - content:
          - text: Writing message.txt.
          - tool_use: ${spec.shell('printf heard > message.txt && echo COST-MESSAGE-DONE')}
        ${usage}
      - content: [{ text: Wrote message.txt. }]
        ${usage}
  - name: wait
    match: { firstUser: COST-WAIT }
    turns:
      - content:
          - text: Waiting for cost-go.
          - tool_use: ${spec.shell('while [ ! -f cost-go ]; do sleep 0.1; done; echo waited')}
        ${usage}
      - content: [{ text: Waited. }]
        ${usage}
  - name: sleep
    match: { firstUser: COST-SLEEP }
    turns:
      - content:
          - text: Sleeping.
          - tool_use: ${spec.shell('sleep 300')}
        ${usage}
turns: []
whenExhausted: { error: { status: 400, message: "agent-cost: no track answers this request" } }
`;

const plan = (spec: Spec, prompt: string) =>
  `name: agent-cost\nagent: ${spec.agent}\nmodel: ${spec.model}\ncodons:\n  - id: c\n    prompt: ${JSON.stringify(prompt)}\n`;

for (const spec of SPECS) {
  describeWithClis(`${spec.agent}: a codon's cost counts every response (e2e)`, [spec.binary], () => {
    const { serve, temps } = e2eResources();
    const priced = (responses: number) => responses * costOf(spec.model, USAGE).usd;

    it("after a codon.message, the codon's cost is both turns' priced tokens", {
      timeout: TIMEOUT,
    }, async () => {
      const { client, root } = await serve(plan(spec, PROMPTS.wait), script(spec), [], spec.env);
      await waitFor(() => commandsIn(root, 'cost-go').length > 0, 'the shell tool waiting', WAIT);
      const sent = await client.sendMessage(PROMPTS.message, { timeoutMs: WAIT });
      expect(sent.data.delivery).toBe('next-turn');
      const completed = client.next('codon.completed', () => true, WAIT);
      writeFileSync(join(root, 'cost-go'), '');
      const done = (await completed).data;
      expect(done).toMatchObject({ codonId: 'c', success: true });
      expect(readFileSync(join(root, 'message.txt'), 'utf8')).toBe('heard');
      // Two responses in the first turn, two in the message's.
      expect(done.cost).toBeCloseTo(priced(4), 9);
      const history = await client.syncHistory();
      const last = history.flatMap((e) => (e.type === 'token.usage' ? [e.data] : [])).at(-1);
      expect(last).toMatchObject({
        inputTokens: 4 * USAGE.input_tokens,
        outputTokens: 4 * USAGE.output_tokens,
        costEstimated: true,
      });
      expect(last?.totalCost).toBeCloseTo(priced(4), 9);
    });

    it('codon.forceStop in a tool call: the response that asked for it counts', {
      timeout: TIMEOUT,
    }, async () => {
      const { client, root } = await serve(plan(spec, PROMPTS.sleep), script(spec), [], spec.env);
      await waitFor(() => commandsIn(root, 'sleep 300').length > 0, 'sleep 300 running', WAIT);
      const completed = client.next('codon.completed', () => true, WAIT);
      client.send('codon.forceStop', { reason: 'by the cost test' });
      const done = (await completed).data;
      expect(done).toMatchObject({ codonId: 'c', success: false });
      expect(done.cost).toBeCloseTo(priced(1), 9);
    });

    it('a server killed in a tool call: the restarted server counts the response that asked for it', {
      timeout: TIMEOUT,
    }, async () => {
      const t = tempDir();
      temps.push(t);
      const files = writePlanAndScript(t.path, plan(spec, PROMPTS.sleep), script(spec));
      const exec = join(t.path, 'exec');
      const root = join(exec, 'agentRoot');
      const args = ['--scripted-provider', files.script];
      const first = await startServer(files.plan, exec, args, 20_000, spec.env);
      await waitFor(() => commandsIn(root, 'sleep 300').length > 0, 'sleep 300 running', WAIT);
      first.kill('SIGKILL');
      await first.exited;
      const second = await startServer(files.plan, exec, [...args, '--no-autostart'], WAIT, spec.env);
      await waitFor(
        () => journalRows(exec).some((r) => r.type === 'codon.completed'),
        'the crashed codon ended',
        WAIT,
      );
      const completed = journalRows(exec).filter((r) => r.type === 'codon.completed');
      expect(completed.map((r) => r.data)).toEqual([
        expect.objectContaining({ codonId: 'c', success: false, cost: expect.closeTo(priced(1), 9) }),
      ]);
      // The agent the dead server left is gone.
      await waitFor(() => commandsIn(root, 'sleep 300').length === 0, 'the orphaned sleep ended', WAIT);
      second.kill('SIGTERM');
      await second.exited;
    });
  });
}
