import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

const PLAN = `name: watched
agent: builtin
codons:
  - id: one
    name: Write a
    prompt: Write a.txt.
    sentinels: [{ file: narrator.yaml }]
  - id: two
    name: Write b
    prompt: Write b.txt.
    sentinels: [{ file: narrator.yaml }]
`;

// The narrator (examples/sentinels/narrator.yaml) answers on its own track; agents declare tools.
const SCRIPT = `tracks:
  - name: narrator
    match: { system: "You narrate a coding agent" }
    turns:
      - content: [{ text: "It wrote a.txt." }]
      - content: [{ text: "It wrote b.txt." }]
turns:
${writeTurns('a.txt', 'alpha')}${writeTurns('b.txt', 'beta')}`;

const inCodon = (history: ServerEvent[], codonId: string) => {
  const start = history.findIndex((e) => e.type === 'codon.started' && e.data.codonId === codonId);
  const end = history.findIndex((e) => e.type === 'codon.completed' && e.data.codonId === codonId);
  return history.slice(start, end + 1);
};

describe('ribosome run with a sentinel (whole process, scripted provider)', () => {
  it('loads the narrator per codon, publishes its output before codon.completed, and writes its files', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, PLAN, SCRIPT);
    copyFileSync(join(ROOT, 'examples/sentinels/narrator.yaml'), join(t.path, 'narrator.yaml'));
    const config = join(t.path, 'config.yaml');
    writeFileSync(config, 'sentinelTriggeredEvents: true\n');
    const exec = join(t.path, 'exec');
    const server = await startServer(files.plan, exec, [
      '--scripted-provider',
      files.script,
      '--config',
      config,
    ]);
    const c = await RibosomeClient.connect(server.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c);
    if (
      !c.handshake.eventHistory.some(
        (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      )
    ) {
      await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    }
    const history = await c.syncHistory();

    for (const [codonId, note] of [
      ['one', 'It wrote a.txt.'],
      ['two', 'It wrote b.txt.'],
    ] as const) {
      const codon = inCodon(history, codonId);
      const trail = codon.filter((e) => e.type.startsWith('sentinel.')).map((e) => e.type);
      // Each codon's four agent events (text, tool_use, tool result, text) are below `every: 6`:
      // the narrator is called once, at codon end, with all of them.
      expect(trail).toEqual([
        'sentinel.loaded',
        'sentinel.triggered',
        'sentinel.output',
        'sentinel.unloaded',
      ]);
      const output = codon.find((e) => e.type === 'sentinel.output');
      expect(output?.type === 'sentinel.output' && output.data).toMatchObject({
        sentinelId: 'narrator',
        codonId,
        triggerNumber: 1,
        outputType: 'text',
        content: note,
        eventCount: 4,
      });
      const unloaded = codon.find((e) => e.type === 'sentinel.unloaded');
      expect(unloaded?.type === 'sentinel.unloaded' && unloaded.data).toMatchObject({
        reason: 'codon-complete',
        llmCallCount: 1,
      });
      expect(codon.at(-1)).toMatchObject({ type: 'codon.completed', data: { success: true } });
      // The sentinel's cost is part of the codon's and the run's totals.
      const sentinelCost = output?.type === 'sentinel.output' ? output.data.cost : 0;
      expect(sentinelCost).toBeGreaterThan(0);
      const sentinelCosts = codon.flatMap((e) =>
        e.type === 'state.transition' &&
        e.data.transitionType === 'CostsIncremented' &&
        e.data.transition.data.source === 'sentinel'
          ? [e.data.transition.data.amount as number]
          : [],
      );
      expect(sentinelCosts.reduce((a, b) => a + b, 0)).toBeCloseTo(sentinelCost, 10);
      const agentTotal = codon.findLast((e) => e.type === 'token.usage');
      const completed = codon.at(-1);
      expect(completed?.type === 'codon.completed' && completed.data.cost).toBeCloseTo(
        (agentTotal?.type === 'token.usage' ? agentTotal.data.totalCost : 0) + sentinelCost,
        10,
      );
      const states = codon.filter(
        (e) => e.type === 'state.transition' && e.data.transitionType === 'SentinelStatesUpdated',
      );
      expect(states.length).toBeGreaterThanOrEqual(2);
    }
    const log = readFileSync(join(exec, '.ribosome/sentinels/narrator.jsonl'), 'utf8').trim().split('\n');
    expect(log.map((l) => JSON.parse(l).content)).toEqual(['It wrote a.txt.', 'It wrote b.txt.']);
    expect(readFileSync(join(exec, '.ribosome/sentinels/narrator.txt'), 'utf8')).toBe('It wrote b.txt.');
  });
});
