/**
 * The agent conformance suite (docs/agents.md): every agent runs the same plans against the scripted
 * provider, each in a real `ribosome run`, and must behave the same for a user. The agent's script
 * (test/agents/conformance/scripts/<agent>.yaml) follows the contract in README.md beside this file:
 * one track per prompt below, written with the agent's own tools and in its provider's API.
 *
 * Checks: events in order, files written, checkpoints taken, rollback to codon one restores the tree,
 * a continuation resumes the same session, a 429 ends the codon as rate-limit, codon.forceStop leaves no
 * process behind (a `sleep 300` its shell tool started), a budget stop, codon.message reaches the agent.
 */
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { commandsIn, processesIn } from '../../helpers/mounts.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { journalRows, runToEnd, tempDir } from '../../helpers/server-process.ts';

/** The prompts the scripts' tracks are matched on (README.md: the contract). */
export const PROMPTS = {
  one: 'CONFORMANCE-ONE: write one.txt containing "one", then list the files.',
  two: 'CONFORMANCE-TWO: write two.txt containing "two".',
  three: 'CONFORMANCE-THREE: write three.txt containing "three".',
  wait: 'CONFORMANCE-WAIT: wait until the file conformance-go exists.',
  message: 'CONFORMANCE-MESSAGE: also write message.txt containing "heard".',
  rate: 'CONFORMANCE-RATE: say hello.',
  sleep: 'CONFORMANCE-SLEEP: run sleep 300.',
  budget: 'CONFORMANCE-BUDGET: spend a lot.',
  after: 'CONFORMANCE-AFTER: never runs.',
} as const;

export type ConformanceSpec = {
  /** The plan's `agent`. */
  agent: 'builtin' | 'claude-code' | 'codex' | 'gemini' | 'opencode';
  /** The agent's script: the contract's tracks in its tools and API. */
  script: string;
  /** The plan's model (one the agent accepts). */
  model: string;
  /** The agent's binary (a path or a command on PATH); absent: nothing to install (built-in). */
  binary?: string;
  /** The server's extra environment (e.g. fewer retries inside the agent). */
  env?: NodeJS.ProcessEnv;
  /** [true] False when the agent reports no cost: its token.usage says costEstimated. */
  reportsCost?: boolean;
  /** [true] False when the agent reports tokens only at its turn's end: a budget passed then stops no turn. */
  usageMidTurn?: boolean;
};

/** Long: an agent CLI takes seconds (tens, on a loaded machine) to start. */
const TIMEOUT = 600_000;
const WAIT = 300_000;

const plan = (spec: ConformanceSpec, codons: Array<{ id: string; prompt: string; extra?: string }>) =>
  `name: conformance\nagent: ${spec.agent}\nmodel: ${spec.model}\ncodons:\n${codons
    .map((c) => `  - id: ${c.id}\n    prompt: ${JSON.stringify(c.prompt)}\n${c.extra ?? ''}`)
    .join('')}`;

/** The processes working in `dir`, for a failure message. */
function describeLeft(dir: string): string {
  return processesIn(dir)
    .map((pid) => {
      try {
        return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')} (cwd ${readlinkSync(`/proc/${pid}/cwd`)})`;
      } catch {
        return `${pid}`;
      }
    })
    .join('\n');
}

/** What a codon's agent run shows a client, from start to end. */
const AGENT_EVENTS = new Set([
  'codon.started',
  'assistant.action',
  'tool.result',
  'token.usage',
  'codon.completed',
]);

const ofCodon = (events: readonly ServerEvent[], codonId: string) =>
  events.filter((e) => 'codonId' in e.data && e.data.codonId === codonId);

const completedOf = (events: readonly ServerEvent[], codonId: string) =>
  events.flatMap((e) => (e.type === 'codon.completed' && e.data.codonId === codonId ? [e.data] : []));

/**
 * Declares the conformance tests of one agent. Its CLI missing: the tests are skipped, saying which
 * binary is missing, or fail when `CI` is set (CI installs every agent CLI).
 */
export function describeConformance(spec: ConformanceSpec): void {
  const title = `conformance: ${spec.agent} against the scripted provider (e2e)`;
  describeWithClis(title, spec.binary === undefined ? [] : [spec.binary], () => {
    const { serve, temps } = e2eResources();
    const script = readFileSync(spec.script, 'utf8');
    const start = (codons: Parameters<typeof plan>[1], extra: string[] = []) =>
      serve(plan(spec, codons), script, extra, spec.env ?? {});

    it('runs three codons in order with checkpoints, continues the session, and rolls back to codon one', {
      timeout: TIMEOUT,
    }, async () => {
      const { client, root } = await start([
        { id: 'one', prompt: PROMPTS.one },
        { id: 'two', prompt: PROMPTS.two, extra: '    continuation: continue-previous\n' },
        { id: 'three', prompt: PROMPTS.three },
      ]);
      await allCompleted(client);
      const history = await client.syncHistory();
      for (const id of ['one', 'two', 'three']) {
        expect(completedOf(history, id), `codon ${id}`).toEqual([
          expect.objectContaining({ success: true, exitStatus: { type: 'success' } }),
        ]);
      }
      // Files written; two.txt only by the track that answers a conversation opened by codon one's
      // prompt: codon two resumed its session.
      expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('one');
      expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('two');
      expect(readFileSync(join(root, 'three.txt'), 'utf8')).toBe('three');
      const started = history.flatMap((e) => (e.type === 'codon.started' ? [e.data] : []));
      const [one, two, three] = started;
      expect(started.map((s) => s.codonId)).toEqual(['one', 'two', 'three']);
      expect(two?.previousSessionId).toBe(one?.sessionId);
      expect(three?.previousSessionId).toBeUndefined();

      // Each codon's events in order: started, the agent's tool call, its result, usage, completed.
      for (const id of ['one', 'two', 'three']) {
        const types = ofCodon(history, id)
          .filter((e) => AGENT_EVENTS.has(e.type))
          .map((e) => (e.type === 'assistant.action' ? `action:${e.data.action}` : e.type));
        const at = (type: string) => types.indexOf(type);
        expect(types[0], `codon ${id}: ${types.join(' ')}`).toBe('codon.started');
        expect(types.at(-1), `codon ${id}`).toBe('codon.completed');
        expect(at('action:tool_use'), `codon ${id}: ${types.join(' ')}`).toBeGreaterThan(0);
        expect(at('tool.result')).toBeGreaterThan(at('action:tool_use'));
        expect(types.lastIndexOf('action:message')).toBeGreaterThan(at('tool.result'));
        expect(at('token.usage')).toBeGreaterThan(0);
      }
      const results = ofCodon(history, 'one').flatMap((e) => (e.type === 'tool.result' ? [e.data] : []));
      expect(results.length).toBeGreaterThanOrEqual(2);
      expect(results.every((r) => !r.isError)).toBe(true);
      const usage = ofCodon(history, 'one').flatMap((e) => (e.type === 'token.usage' ? [e.data] : []));
      const last = usage.at(-1);
      expect(last?.inputTokens).toBeGreaterThan(0);
      expect(last?.outputTokens).toBeGreaterThan(0);
      expect(last?.totalCost).toBeGreaterThan(0);
      expect(last?.costEstimated).toBe(spec.reportsCost === false ? true : undefined);

      // Checkpoints, then a rollback to codon one's end: its file stays, the later ones go.
      const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
      const completed = list.data.checkpoints.filter((c) => c.checkpointType === 'completed');
      expect(completed.map((c) => c.codonId)).toEqual(['one', 'two', 'three']);
      const done = client.waitFor((e) => e.type === 'rollback.completed', WAIT, 'rollback.completed');
      client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'completed' });
      await done;
      expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('one');
      expect(existsSync(join(root, 'two.txt'))).toBe(false);
      expect(existsSync(join(root, 'three.txt'))).toBe(false);
    });

    it('hands a codon.message to the agent: the next provider request carries it', {
      timeout: TIMEOUT,
    }, async () => {
      const { client, root } = await start([{ id: 'wait', prompt: PROMPTS.wait }]);
      await waitFor(() => commandsIn(root, 'conformance-go').length > 0, 'the shell tool waiting', WAIT);
      const sent = await client.sendMessage(PROMPTS.message, { timeoutMs: WAIT });
      expect(sent.data).toMatchObject({ codonId: 'wait', text: PROMPTS.message });
      expect(['live', 'next-turn']).toContain(sent.data.delivery);
      const completed = client.next('codon.completed', () => true, WAIT);
      writeFileSync(join(root, 'conformance-go'), '');
      expect((await completed).data).toMatchObject({ codonId: 'wait', success: true });
      // Only the track matched on the message's text writes it.
      expect(readFileSync(join(root, 'message.txt'), 'utf8')).toBe('heard');
    });

    it('a provider answering 429 ends the codon as rate-limit', { timeout: TIMEOUT }, async () => {
      const made = tempDir();
      temps.push(made);
      const dir = made.path;
      const files = writePlanAndScript(dir, plan(spec, [{ id: 'rate', prompt: PROMPTS.rate }]), script);
      const exec = join(dir, 'exec');
      const ran = await runToEnd(files.plan, exec, files.script, [], {
        env: spec.env ?? {},
        timeoutMs: WAIT,
      });
      expect(ran.code, ran.stderr).toBe(1);
      const completed = journalRows(exec).filter((r) => r.type === 'codon.completed');
      expect(completed.map((r) => r.data)).toEqual([
        expect.objectContaining({
          codonId: 'rate',
          success: false,
          failureReason: expect.objectContaining({ type: 'rate-limit', retriable: true }),
        }),
      ]);
    });

    it('codon.forceStop ends the agent and the sleep 300 its shell tool started: no process is left', {
      timeout: TIMEOUT,
    }, async () => {
      const { client, exec, root } = await start([{ id: 'sleep', prompt: PROMPTS.sleep }]);
      await waitFor(() => commandsIn(root, 'sleep 300').length > 0, 'sleep 300 running', WAIT);
      const completed = client.next('codon.completed', () => true, WAIT);
      client.send('codon.forceStop', { reason: 'by the conformance test' });
      expect((await completed).data).toMatchObject({
        codonId: 'sleep',
        success: false,
        failureReason: {
          type: 'unknown',
          retriable: false,
          message: expect.stringContaining('by the conformance test'),
        },
      });
      expect(processesIn(exec), describeLeft(exec)).toEqual([]);
    });

    it('a budget passed stops the run: nothing more starts', { timeout: TIMEOUT }, async () => {
      const { client, exec } = await start(
        [
          { id: 'spend', prompt: PROMPTS.budget },
          { id: 'after', prompt: PROMPTS.after },
        ],
        ['--max-cost', '1'],
      );
      const exceeded = await seen(
        client,
        (e) => e.type === 'error' && e.data.code === 'BUDGET_EXCEEDED',
        'BUDGET_EXCEEDED',
      );
      expect(exceeded.type === 'error' && exceeded.data.message).toMatch(/maxCostUsd 1\.00/);
      const spent = await seen(
        client,
        (e) => e.type === 'codon.completed' && e.data.codonId === 'spend',
        'codon spend completed',
      );
      // An agent that reports usage as it goes is stopped mid-turn; one that reports it at its
      // turn's end has finished when the budget is passed.
      if (spec.usageMidTurn !== false) {
        expect(spent.data).toMatchObject({
          success: false,
          failureReason: expect.objectContaining({ type: 'budget', retriable: false }),
        });
      }
      await seen(client, (e) => e.type === 'server.idle', 'server.idle');
      const history = await client.syncHistory();
      expect(history.some((e) => e.type === 'codon.started' && e.data.codonId === 'after')).toBe(false);
      expect(processesIn(exec), describeLeft(exec)).toEqual([]);
    });
  });
}

/** The first event matching, received already (or in the handshake's history) or to come. */
async function seen(
  client: RibosomeClient,
  match: (e: ServerEvent) => boolean,
  what: string,
): Promise<ServerEvent> {
  const waiting = client.waitFor(match, WAIT, what);
  const earlier = [...client.handshake.eventHistory, ...client.received] as ServerEvent[];
  const already = earlier.find(match);
  if (already) {
    waiting.catch(() => {});
    return already;
  }
  return waiting;
}

/** Resolves once the plan's codons have all run (now or already). */
async function allCompleted(client: RibosomeClient): Promise<void> {
  await seen(
    client,
    (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
    'all codons completed',
  );
}
