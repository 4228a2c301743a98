import { describe, expect, it } from 'vitest';
import { COMMAND_TYPES, type CommandType, READONLY_COMMANDS } from '../../../src/core/protocol/index.ts';
import { gateCommand } from '../../../src/host/server/gate.ts';

const MODIFYING = COMMAND_TYPES.filter((t) => !READONLY_COMMANDS.has(t));

describe('connection gates (spec 3.1, 7)', () => {
  it('lists the readonly commands of spec 4.2 (and our checkpoint.diff) and nothing else', () => {
    expect([...READONLY_COMMANDS].sort()).toEqual(
      [
        'checkpoint.list',
        'checkpoint.diff',
        'dashboard.ticket',
        'history.sync',
        'ping',
        'ping.broadcast',
        'server.shutdown',
      ].sort(),
    );
    expect(MODIFYING.sort()).toEqual(
      [
        'codon.start',
        'codon.next',
        'codon.skip',
        'codon.redo',
        'codon.forceStop',
        // Ours: a message to the running agent steers it, so it needs readandwrite.
        'codon.message',
        // Ours: review comments are journaled and a review acts on the run.
        'review.comment',
        'review.submit',
        'rollback.toCheckpoint',
        'rollback.toCodon',
        'rollback.toLastSuccess',
        // Ours: approving moves the run on (docs/review.md#approval-gates).
        'approval.approve',
      ].sort(),
    );
  });

  it.each(COMMAND_TYPES)('%s before the handshake needs HANDSHAKE_REQUIRED', (type) => {
    expect(gateCommand(type, { mode: undefined, rollingBack: false })?.code).toBe('HANDSHAKE_REQUIRED');
    expect(gateCommand(type, { mode: undefined, rollingBack: true })?.code).toBe('HANDSHAKE_REQUIRED');
  });

  it.each(COMMAND_TYPES)(
    '%s: readonly and readandwrite, with and without a rollback',
    (type: CommandType) => {
      const modifying = !READONLY_COMMANDS.has(type);
      expect(gateCommand(type, { mode: 'readonly', rollingBack: false })?.code ?? null).toBe(
        modifying ? 'INSUFFICIENT_PERMISSIONS' : null,
      );
      expect(gateCommand(type, { mode: 'readonly', rollingBack: true })?.code ?? null).toBe(
        modifying ? 'INSUFFICIENT_PERMISSIONS' : null,
      );
      expect(gateCommand(type, { mode: 'readandwrite', rollingBack: false })).toBeNull();
      expect(gateCommand(type, { mode: 'readandwrite', rollingBack: true })?.code ?? null).toBe(
        modifying ? 'ROLLBACK_IN_PROGRESS' : null,
      );
    },
  );

  it('a readonly dashboard ticket cannot stop the server; a page cannot ask for tickets', () => {
    const readonlyPage = {
      mode: 'readonly',
      rollingBack: false,
      fromPage: true,
      readonlyDashboard: true,
    } as const;
    expect(gateCommand('server.shutdown', readonlyPage)?.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(gateCommand('codon.message', readonlyPage)?.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(gateCommand('history.sync', readonlyPage)).toBeNull();
    expect(gateCommand('dashboard.ticket', readonlyPage)?.code).toBe('INSUFFICIENT_PERMISSIONS');
    // A protocol client keeps what the spec gives a readonly client: server.shutdown.
    expect(gateCommand('server.shutdown', { mode: 'readonly', rollingBack: false })).toBeNull();
    expect(gateCommand('dashboard.ticket', { mode: 'readonly', rollingBack: false })).toBeNull();
    expect(
      gateCommand('dashboard.ticket', { mode: 'readandwrite', rollingBack: false, fromPage: true })?.code,
    ).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('says what to do in its messages', () => {
    expect(gateCommand('codon.next', { mode: undefined, rollingBack: false })?.message).toMatch(/handshake/);
    expect(gateCommand('codon.next', { mode: 'readonly', rollingBack: false })?.message).toMatch(
      /readandwrite/,
    );
    expect(gateCommand('codon.next', { mode: 'readandwrite', rollingBack: true })?.message).toMatch(
      /rollback\.completed/,
    );
  });
});
