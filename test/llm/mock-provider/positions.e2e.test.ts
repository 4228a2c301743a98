/**
 * The scripted provider's tracks across a server's restart on the same execution: a kill -9, then a
 * start again, goes on where the tracks were (kept in .ribosome as each turn is handed out) instead
 * of replaying the answers already given; a new execution starts at the beginning.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { executionLayout } from '../../../src/execution/layout/layout.ts';
import { positionsFile } from '../../../src/llm/mock-provider/positions-file.ts';
import type { RequestView } from '../../../src/llm/mock-provider/request-view.ts';
import { parseScript } from '../../../src/llm/mock-provider/script-loader.ts';
import { createScriptPlayer } from '../../../src/llm/mock-provider/script-player.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { idleAfter } from '../../helpers/idle-after.ts';
import { simplePlan, writeTurns } from '../../helpers/plans.ts';
import { startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

/** Runs the next codon (no autostart) to its idle; returns how it ended. */
async function next(url: string) {
  const c = await RibosomeClient.connect(url, { mode: 'readandwrite' });
  clients.push(c);
  // Not the startup idle of a server started again, which may come after the client connected.
  const idle = idleAfter(c, 'codon.started');
  c.send('codon.next');
  return (await idle).data.lastEnded;
}

describe('the scripted provider across restarts', () => {
  it('after a kill -9 and a start again, the tracks go on where they were; a new execution starts over', async () => {
    const t = tempDir();
    temps.push(t);
    const plan = join(t.path, 'plan.yaml');
    writeFileSync(plan, simplePlan(['one', 'two']));
    // One track for both codons: one writes a.txt, two writes b.txt.
    const script = join(t.path, 'script.yaml');
    writeFileSync(script, `turns:\n${writeTurns('a.txt', 'a')}${writeTurns('b.txt', 'b')}`);
    const exec = join(t.path, 'exec');
    const args = ['--no-autostart', '--scripted-provider', script];

    const first = await startServer(plan, exec, args);
    expect(await next(first.url)).toMatchObject({ codonId: 'one', status: 'completed' });
    const saved = executionLayout(exec).scriptedProvider;
    expect(JSON.parse(readFileSync(saved, 'utf8')).positions).toMatchObject({ default: 2 });
    first.kill('SIGKILL');
    await first.exited;

    const second = await startServer(plan, exec, args);
    expect(await next(second.url)).toMatchObject({ codonId: 'two', status: 'completed' });
    // Codon two got the third and fourth turns, not codon one's again.
    expect(readFileSync(join(exec, 'agentRoot', 'b.txt'), 'utf8')).toBe('b');
    second.kill('SIGKILL');
    await second.exited;

    // A new execution: the script from its first turn.
    const fresh = join(t.path, 'fresh');
    const third = await startServer(plan, fresh, args);
    expect(await next(third.url)).toMatchObject({ codonId: 'one', status: 'completed' });
    expect(readFileSync(join(fresh, 'agentRoot', 'a.txt'), 'utf8')).toBe('a');
    expect(existsSync(join(fresh, 'agentRoot', 'b.txt'))).toBe(false);
    third.kill('SIGKILL');
    await third.exited;
  }, 120_000);
});

describe('saved positions', () => {
  const view = {
    api: 'anthropic',
    model: 'm',
    system: '',
    firstUser: 'x',
    lastUser: 'x',
    hasTools: true,
    headers: {},
  } as unknown as RequestView;
  const parsed = parseScript({ turns: [{ content: [{ text: 'one' }] }, { content: [{ text: 'two' }] }] });
  if (!parsed.ok) throw new Error(parsed.error.message);

  it('a player given positions starts there, and reports where it is', () => {
    const player = createScriptPlayer(parsed.script, { default: 1 });
    expect(player.next(view).position).toBe(1);
    expect(player.positions()).toEqual({ default: 2 });
    expect(player.next(view).position).toBeNull();
  });

  it('a looping track starts at its first turn whatever was saved (it plays again for every attempt)', () => {
    const looping = parseScript({
      tracks: [
        {
          name: 'again',
          match: { tools: true },
          loop: true,
          turns: [{ content: [{ text: 'a' }] }, { content: [{ text: 'b' }] }],
        },
      ],
    });
    if (!looping.ok) throw new Error(looping.error.message);
    const player = createScriptPlayer(looping.script, { again: 1, default: 0 });
    expect(player.next(view)).toMatchObject({ track: 'again', position: 0 });
    expect(player.positions()).toEqual({ default: 0 });
  });

  it('are kept for the same script only: another script starts from its beginning', () => {
    const t = tempDir();
    temps.push(t);
    const file = join(t.path, 'positions.json');
    positionsFile(file, 'turns: [a]').save({ default: 3 });
    expect(positionsFile(file, 'turns: [a]').load()).toEqual({ default: 3 });
    expect(positionsFile(file, 'turns: [b]').load()).toEqual({});
    writeFileSync(file, 'not json');
    expect(positionsFile(file, 'turns: [a]').load()).toEqual({});
  });
});
