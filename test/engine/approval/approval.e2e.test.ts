import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStatus } from '../../../src/clients/mcp/read-run.ts';
import { statusText } from '../../../src/clients/mcp/status.ts';
import { CommandError, RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent, ServerEventOf } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { cliToEnd, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * Approval gates (docs/review.md#approval-gates) with a real server, real git, the built-in agent and
 * the scripted provider: a codon with `approval: required` that ends well holds the run until a
 * control client approves it; a readonly client cannot, codon.next is refused, a redo or a rollback
 * ends the wait, and a server killed during it waits again once started.
 */

const { temps, clients, serve } = e2eResources();
const WAIT = 60_000;

const plan = (one: string) =>
  `name: gates\nagent: builtin\ncodons:\n  - id: one\n    name: Design\n    prompt: Do one.\n${one}  - id: two\n    prompt: Do two.\n`;
const track = (id: string, turns: string) =>
  `  - name: ${id}\n    match: { firstUser: "Do ${id}." }\n    turns:\n${turns.replace(/^(?=.)/gm, '    ')}`;
/** Codon one writes one.txt (as often as it runs), two writes two.txt. */
const script = (runsOfOne = 1) =>
  `tracks:\n${track('one', writeTurns('one.txt', 'ok').repeat(runsOfOne))}${track('two', writeTurns('two.txt', 'ok'))}turns: []\n`;

const ofType = <T extends ServerEvent['type']>(events: readonly ServerEvent[], type: T) =>
  events.filter((e) => e.type === type) as unknown as ServerEventOf<T>[];

async function refusal(promise: Promise<unknown>): Promise<CommandError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CommandError);
  return error as CommandError;
}

describe('approval gates', { timeout: 120_000 }, () => {
  it('waits after codon one; a readonly client cannot approve, codon.next is refused; approved, codon two runs', async () => {
    const { client, server, root } = await serve(plan('    approval: required\n'), script());
    const held = await client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    expect(held.data.approval).toMatchObject({
      codonId: 'one',
      codonName: 'Design',
      approvers: 'control-clients',
    });
    expect(held.data.message).toMatch(/^waiting for approval of codon one \(Design\); approve it/);
    const history = await client.syncHistory();
    const [waiting] = ofType(history, 'approval.waiting');
    expect(waiting?.data).toMatchObject({
      codonId: 'one',
      message: 'waiting for approval of codon one (Design)',
    });
    // What is approved is the checkpoint codon one ended at.
    const completed = ofType(history, 'state.transition')
      .map(
        (e) =>
          e.data.transition.data as { checkpoint?: { sha: string; codonId: string; checkpointType: string } },
      )
      .find((d) => d.checkpoint?.codonId === 'one' && d.checkpoint.checkpointType === 'completed');
    expect(waiting?.data.checkpointSha).toBe(completed?.checkpoint?.sha);
    expect(ofType(history, 'codon.started').map((e) => e.data.codonId)).toEqual(['one']);
    expect(existsSync(join(root, 'two.txt'))).toBe(false);

    // A client that connects now learns the wait from the snapshot.
    const viewer = await RibosomeClient.connect(server.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(viewer);
    const denied = await refusal(viewer.request('approval.approve', { codonId: 'one' }, 'approval.ended'));
    expect(denied.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(denied.message).toContain('needs a readandwrite client; this client is readonly');

    const next = await refusal(client.request('codon.next', undefined, 'codon.started'));
    expect(next.code).toBe('APPROVAL_REQUIRED');
    expect(next.message).toMatch(
      /^APPROVAL_REQUIRED: codon\.next is refused: waiting for approval of codon one \(Design\); approve it \(approval\.approve .*\), request changes .*, or roll back$/,
    );
    const other = await refusal(client.request('codon.start', { codonId: 'two' }, 'codon.started'));
    expect(other.code).toBe('APPROVAL_REQUIRED');
    const wrong = await refusal(client.request('approval.approve', { codonId: 'two' }, 'approval.ended'));
    expect(wrong.code).toBe('NOTHING_TO_APPROVE');
    expect(wrong.message).toContain('codon one does');

    const started = client.next('codon.started', (e) => e.data.codonId === 'two', WAIT);
    // Listened for before the approval: on a loaded machine the run's last frames can come in one read with its answer.
    const done = client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', WAIT);
    const ended = await client.request(
      'approval.approve',
      { codonId: 'one', note: 'looks right' },
      'approval.ended',
    );
    expect(ended.data).toMatchObject({
      codonId: 'one',
      how: 'approved',
      clientId: client.clientId,
      note: 'looks right',
    });
    await started;
    await done;
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('ok');
    // No wait is left to approve.
    const none = await refusal(client.request('approval.approve', { codonId: 'one' }, 'approval.ended'));
    expect(none.code).toBe('NOTHING_TO_APPROVE');
  });

  it('with --no-autostart, an approval says the run stays idle, and it does until codon.next', async () => {
    const { client } = await serve(plan('    approval: required\n'), script(), ['--no-autostart']);
    const held = client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    await client.request('codon.next', undefined, 'codon.started', { timeoutMs: WAIT });
    await held;
    const idle = client.next('server.idle', () => true, WAIT);
    const ended = await client.request('approval.approve', { codonId: 'one' }, 'approval.ended', {
      timeoutMs: WAIT,
    });
    expect(ended.data.message).toMatch(
      /^codon one approved by \S+; autostart is off, so the run stays idle until the next codon is started/,
    );
    expect((await idle).data.heldBy).toBeUndefined();
    const history = await client.syncHistory();
    expect(ofType(history, 'codon.started').map((e) => e.data.codonId)).toEqual(['one']);
    const two = await client.request('codon.next', undefined, 'codon.started', { timeoutMs: WAIT });
    expect(two.data.codonId).toBe('two');
  });

  it('a codon that failed does not wait: onFailure decides as before', async () => {
    const failing = plan('    approval: required\n    verify:\n      - run: "false"\n');
    const { client } = await serve(failing, script());
    const idle = await client.next('server.idle', (e) => e.data.lastEnded?.status === 'failed', WAIT);
    expect(idle.data.heldBy).toBeUndefined();
    const history = await client.syncHistory();
    expect(ofType(history, 'approval.waiting')).toEqual([]);
  });

  it('codon.redo ends the wait and runs the codon again, which waits again; a rollback ends it too', async () => {
    const { client, root } = await serve(plan('    approval: required\n'), script(2));
    await client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    // Every event is listened for before the command that brings it: under load the run's frames can
    // come in one read, and a listener added after the first would miss the others.
    const again = client.next('approval.waiting', () => true, WAIT);
    const ended = client.next('approval.ended', () => true, WAIT);
    const heldAgain = client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    client.send('codon.redo');
    expect((await ended).data).toMatchObject({ codonId: 'one', how: 'command', command: 'codon.redo' });
    expect((await again).data.codonId).toBe('one');
    await heldAgain;

    const rolled = client.next('approval.ended', (e) => e.data.how === 'rolled-back', WAIT);
    const idleAfter = client.next('server.idle', () => true, WAIT);
    await client.request(
      'rollback.toCodon',
      { codonId: 'one', checkpointType: 'start' },
      'rollback.completed',
      {
        timeoutMs: WAIT,
      },
    );
    expect((await rolled).data).toMatchObject({ codonId: 'one', command: 'rollback.toCodon' });
    const idle = await idleAfter;
    expect(idle.data.heldBy).toBeUndefined();
    expect(existsSync(join(root, 'one.txt'))).toBe(false);
    const history = await client.syncHistory();
    expect(ofType(history, 'codon.started').map((e) => e.data.codonId)).toEqual(['one', 'one']);
  });

  it('request changes: a review sent to redo ends the wait; codon one runs again from its start with it, then waits again', async () => {
    const redone = `  - name: redo\n    match: { firstUser: "Review of the changes of codon one" }\n    turns:\n${writeTurns('one.txt', 'better').replace(/^(?=.)/gm, '    ')}`;
    const { client, root } = await serve(
      plan('    approval: required\n'),
      script().replace('tracks:\n', `tracks:\n${redone}`),
    );
    await client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    // A review with nothing to send is refused before it ends the wait: nothing journaled of the wait.
    const empty = await refusal(
      client.request('review.submit', { codonId: 'one', to: 'redo' }, 'review.sent', { timeoutMs: WAIT }),
    );
    expect(empty.message).toContain('codon one has no comments to send');
    const untouched = await client.syncHistory();
    expect(ofType(untouched, 'approval.ended')).toEqual([]);
    expect(ofType(untouched, 'approval.waiting')).toHaveLength(1);
    const comment = await client.request(
      'review.comment',
      { codonId: 'one', file: 'one.txt', lines: { start: 1, end: 1 }, text: 'Say better.' },
      'review.comment',
      { timeoutMs: WAIT },
    );
    const ended = client.next('approval.ended', () => true, WAIT);
    const again = client.next('approval.waiting', () => true, WAIT);
    const heldAgain = client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    client.send('review.submit', { codonId: 'one', to: 'redo', note: 'One change, please.' });
    expect((await ended).data).toMatchObject({ codonId: 'one', how: 'changes-requested' });
    expect((await again).data.codonId).toBe('one');
    await heldAgain;
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('better');
    const history = await client.syncHistory();
    expect(ofType(history, 'codon.started').map((e) => e.data.codonId)).toEqual(['one', 'one']);
    const [sent] = ofType(history, 'review.sent');
    expect(sent?.data).toMatchObject({ codonId: 'one', to: 'redo', commentIds: [comment.data.commentId] });
    const heard = ofType(history, 'codon.message').filter((e) => e.data.delivery === 'prompt');
    expect(heard.map((e) => e.data.text).join('\n')).toContain('Say better.');
    expect(existsSync(join(root, 'two.txt'))).toBe(false);
  });

  it('a rollback refused during the wait gives the wait back', async () => {
    const { client } = await serve(plan('    approval: required\n'), script());
    await client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    const back = client.next(
      'approval.waiting',
      (e) => e.data.message.startsWith('rollback.toCheckpoint'),
      WAIT,
    );
    // Listened for before the command: the idle follows the wait given back at once.
    const heldAgain = client.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    const refused = await refusal(
      client.request('rollback.toCheckpoint', { checkpointSha: 'ffffffff' }, 'rollback.completed'),
    );
    expect(refused.code).toBe('CHECKPOINT_NOT_FOUND');
    expect((await back).data).toMatchObject({ codonId: 'one' });
    await heldAgain;
    const next = await refusal(client.request('codon.next', undefined, 'codon.started'));
    expect(next.code).toBe('APPROVAL_REQUIRED');
  });

  it('a server killed during the wait waits again when started again; approved, it goes on', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, plan('    approval: required\n'), script());
    const exec = join(t.path, 'exec');
    const args = ['--scripted-provider', files.script];
    const first = await startServer(files.plan, exec, args);
    const watcher = await RibosomeClient.connect(first.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(watcher);
    const held = watcher.next('server.idle', (e) => e.data.heldBy === 'approval', WAIT);
    const waiting = await watcher.next('approval.waiting', () => true, WAIT);
    await held;
    first.kill('SIGKILL');
    await first.exited;
    // Read from the files while no server runs: the wait is what the next server will do.
    const runs = await cliToEnd(['runs', '--execution', exec]);
    expect(runs.stdout).toMatch(/^\S+\s+crashed; waiting for approval of one\s/m);
    const log = await cliToEnd(['log', '--execution', exec]);
    expect(log.stdout.split('\n')).toContain('? waiting for approval of codon one (Design)');
    const status = readStatus({ dir: exec, url: undefined });
    expect(status.approvalWait).toMatchObject({ codonId: 'one', since: waiting.data.since });
    expect(statusText(status)).toContain('waiting for approval of codon one (Design) since');

    const second = await startServer(files.plan, exec, args);
    const client = await RibosomeClient.connect(second.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    // The restarted server's idle: journaled before the sync, or live after it (listened for first).
    const live = client.next('server.idle', () => true, WAIT).catch(() => undefined);
    const history = await client.syncHistory();
    const idle = ofType(history, 'server.idle').at(-1) ?? (await live);
    expect(idle).toBeDefined();
    if (!idle) return;
    expect(idle.data).toMatchObject({
      heldBy: 'approval',
      approval: { codonId: 'one', since: waiting.data.since },
    });
    // Not journaled again: the wait is the same one.
    expect(ofType(history, 'approval.waiting')).toHaveLength(1);
    expect(ofType(history, 'info').some((e) => e.data.message.includes('still waits for approval'))).toBe(
      true,
    );
    const next = await refusal(client.request('codon.next', undefined, 'codon.started'));
    expect(next.code).toBe('APPROVAL_REQUIRED');
    const done = client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', WAIT);
    await client.request('approval.approve', { codonId: 'one' }, 'approval.ended');
    await done;
    expect(readFileSync(join(exec, 'agentRoot', 'two.txt'), 'utf8')).toBe('ok');
  });
});
