import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helpLine } from '../../../src/clients/tui/view/keymap.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { approvalWaysOut } from '../../../src/core/words/approval-words.ts';
import { codonEnd, codonStart, resetCost, runStarted } from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { renderApp } from './helpers/render.ts';

/**
 * The terminal UI while a codon waits for approval (docs/review.md#approval-gates): the header says
 * which codon and the keys (approve, request changes, roll back to its start); a readonly UI says it
 * cannot approve, and its keys do nothing.
 */

beforeEach(() => resetCost());
afterEach(() => cleanup());

const WAIT = {
  codonId: 'one',
  codonName: 'Design',
  since: '2026-11-30T12:00:00.000Z',
  approvers: 'control-clients' as const,
};
function waitingHistory(): ServerEvent[] {
  return [
    ...runStarted(),
    ...codonStart('one', 0, 'Design'),
    ...codonEnd('one', 'completed'),
    ev('approval.waiting', { ...WAIT, message: 'waiting for approval of codon one (Design)' }),
    ev('server.idle', {
      reason: 'codon-completed',
      message: 'waiting for approval of codon one (Design)',
      nextCodonId: 'two',
      heldBy: 'approval',
      approval: WAIT,
    }),
  ];
}
const header = (frame: string) => frame.split('\n')[1] ?? '';

describe('the terminal UI during an approval wait', () => {
  it('says which codon waits and the keys; a approves it, and the wait ends with approval.ended', async () => {
    const client = new FakeClient({ history: waitingHistory() });
    const app = renderApp(client, { width: 160 });
    const frame = await app.waitFor('waiting for approval of codon one (Design)');
    expect(header(frame)).toMatch(
      /^waiting for approval of codon one \(Design\): a approve · r request changes · u roll back {2}cost/,
    );
    const row = frame.split('\n').find((l) => l.includes('one Design'));
    expect(row).toMatch(/^\? one Design\s+approval/);
    // The help line leads with the wait's keys, in the header's words; n, s and g (refused, or with
    // nothing to act on, while it waits) are left out.
    expect(frame).toMatch(/READ-WRITE {2}r request changes {2}a approve {2}u roll back/);
    const help = frame.split('\n').find((l) => l.startsWith('READ-WRITE')) ?? '';
    expect(help).not.toMatch(/ (n next|s skip|g start)/);
    await app.press('a');
    expect(client.controls()).toMatchObject([{ type: 'approval.approve', data: { codonId: 'one' } }]);
    client.emit(ev('approval.ended', { codonId: 'one', how: 'approved', message: 'codon one approved' }));
    const after = await app.waitFor((f) => !header(f).includes('waiting for approval'));
    expect(after.split('\n').find((l) => l.includes('one Design'))).toMatch(/completed/);
  });

  it('the status line says the ways out with the keys, not the protocol’s commands', async () => {
    const history = waitingHistory();
    const said = `waiting for approval of codon one (Design); ${approvalWaysOut('one')}`;
    history.push(
      ev('server.idle', {
        reason: 'codon-completed',
        message: said,
        nextCodonId: 'two',
        heldBy: 'approval',
        approval: WAIT,
      }),
    );
    const app = renderApp(new FakeClient({ history }), { width: 200 });
    const frame = await app.waitFor('waiting for approval of codon one (Design); a approve');
    const rows = frame.split('\n');
    const status = rows[rows.findIndex((l) => l.startsWith('READ-WRITE')) - 1] ?? '';
    expect(status).toContain(
      'waiting for approval of codon one (Design); a approve · r request changes · u roll back',
    );
    expect(status).not.toContain('approval.approve');
  });

  it('u asks to roll back to the codon’s start, then sends rollback.toCodon start', async () => {
    const client = new FakeClient({ history: waitingHistory() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('waiting for approval of codon one');
    await app.press('u');
    const asking = await app.waitFor('start of one');
    // While it asks, a means "yes, then restart": the help line offers no approve.
    const help = asking.split('\n').find((l) => l.startsWith('READ-WRITE')) ?? '';
    expect(help).toContain('y yes  a yes, then restart  n no');
    expect(help).not.toContain('a approve');
    await app.press('y');
    expect(client.controls()).toMatchObject([
      { type: 'rollback.toCodon', data: { codonId: 'one', checkpointType: 'start', autoRestart: false } },
    ]);
  });

  it('r requests changes: the codon runs again (codon.redo)', async () => {
    const client = new FakeClient({ history: waitingHistory() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('waiting for approval of codon one');
    await app.press('r');
    expect(client.controls().map((c) => c.type)).toEqual(['codon.redo']);
  });

  it('a readonly UI shows the wait, says it cannot approve, and sends nothing', async () => {
    const client = new FakeClient({ history: waitingHistory(), mode: 'readonly' });
    const app = renderApp(client, { width: 160, readonly: true });
    const frame = await app.waitFor('waiting for approval of codon one');
    expect(header(frame)).toContain('this client is read-only and cannot approve');
    await app.press('a');
    await app.press('u');
    expect(client.controls()).toEqual([]);
  });

  it('the help line shows the approval keys only while a codon waits', () => {
    expect(helpLine(false, 200)).not.toMatch(/a approve/);
    expect(helpLine(false, 200, 'two')).toMatch(/n next: two/);
    expect(helpLine(false, 200, 'two', undefined, true)).not.toMatch(/n next/);
    expect(helpLine(true, 200, 'two', undefined, true)).not.toMatch(/approve/);
  });
});
