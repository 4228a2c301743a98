import { describe, expect, it } from 'vitest';
import { ENDED_FROM_OUTSIDE } from '../../../src/agents/stream-line.ts';
import { consoleView } from '../../../src/clients/cli/console-view.ts';
import type { MessageSender, ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonEnd, codonStart, runStarted, toolCall, toolDone } from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

/** The lines the console view (`ribosome log`, `run` without the terminal UI) prints for these events. */
const lines = (events: readonly ServerEvent[]) => {
  const describe = consoleView();
  return events.flatMap((e) => describe(e) ?? []);
};

describe('the console view of a codon start', () => {
  it('names the agent when the server says which one runs the codon (a plan may mix them)', () => {
    const started = ev('codon.started', {
      codonId: 'test',
      codonName: 'Add a test',
      sessionId: 's-1',
      startTime: '2026-01-01T00:00:00.000Z',
      agent: 'codex',
    });
    const older = ev('codon.started', { ...started.data, agent: undefined } as never);
    expect(lines([started, older])).toEqual(['> test: Add a test (codex)', '> test: Add a test']);
  });
});

describe('the console view of a codon whose cost is an estimate (trial 18 M1)', () => {
  it('marks it ~, and says what that means the first time', () => {
    const done = ev('codon.completed', {
      codonId: 'cx1',
      success: true,
      cost: 0.0604,
      costEstimated: true,
      duration: 500,
      exitStatus: { type: 'success' },
    });
    const exact = ev('codon.completed', { ...done.data, codonId: 'cc', costEstimated: undefined } as never);
    expect(lines([exact, done, { ...done, data: { ...done.data, codonId: 'cx2' } }])).toEqual([
      '< cc completed (0.5s, $0.0604)',
      '< cx1 completed (0.5s, ~$0.0604 estimated: its agent reports no cost)',
      '< cx2 completed (0.5s, ~$0.0604)',
    ]);
  });
});

describe('the console view of a codon that did not complete', () => {
  it('a failure: its type apart from its message, in brackets', () => {
    const failed = ev('codon.completed', {
      codonId: 'two',
      success: false,
      cost: 0.5,
      duration: 1500,
      exitStatus: { type: 'error', code: 1 },
      failureReason: { type: 'api-error', retriable: false, message: 'API Error: 400 bad request' },
    });
    const bare = ev('codon.completed', { ...failed.data, failureReason: undefined } as never);
    expect(lines([failed, bare])).toEqual([
      '< two FAILED (1.5s, $0.5000): [api-error] API Error: 400 bad request',
      '< two FAILED (1.5s, $0.5000): [unknown]',
    ]);
  });

  it("an agent's multi-line error text reads on one line, in the failure and in the error event, whole in the latter (trial 18 L3)", () => {
    const text =
      '[API Error: Scripted 429 RESOURCE_EXHAUSTED\nSuggested retry after 1s.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method';
    const failed = ev('codon.completed', {
      codonId: 'r429-gm',
      success: false,
      cost: 0,
      duration: 1500,
      exitStatus: { type: 'error', code: 173 },
      failureReason: { type: 'rate-limit', retriable: true, message: text },
    });
    const error = ev('error', {
      code: 'CODON_FAILED',
      message: `codon r429-gm failed: ${text}`,
      severity: 'codon',
      fatal: false,
    });
    const out = lines([failed, error]);
    expect(out).toHaveLength(2);
    for (const line of out) expect(line).not.toMatch(/\n/);
    expect(out[0]).toMatch(
      /^< r429-gm FAILED \(1\.5s, \$0\.0000\): \[rate-limit\] \[API Error: Scripted 429 RESOURCE_EXHAUSTED Suggested retry after 1s\.\] Please/,
    );
    expect(out[1]).toBe(`! [codon] codon r429-gm failed: ${text.replaceAll('\n', ' ')}`);
  });

  it('a codon a client stopped or skipped reads STOPPED or SKIPPED, as its transition said, with who and why', () => {
    const events = [
      ...runStarted(),
      ...codonStart('one', 0),
      ...codonEnd('one', 'stopped'),
      ...codonStart('two', 1),
      ...codonEnd('two', 'skipped'),
      ...codonStart('one', 0),
      ...codonEnd('one', 'failed'),
    ];
    expect(lines(events).filter((l) => l.startsWith('<'))).toEqual([
      '< one STOPPED (2.1s, $0.0123): it stopped',
      '< two SKIPPED (2.1s, $0.0123): it skipped',
      // The next ending of the same codon is its own.
      '< one FAILED (2.1s, $0.0123): [unknown] it failed',
    ]);
  });
});

describe('the console view of a message to the agent', () => {
  it('says who sent it', () => {
    const message = ev('codon.message', {
      codonId: 'one',
      text: 'try the\nother file',
      from: { kind: 'sentinel', sentinelId: 'loop-detector' },
      delivery: 'live',
    });
    expect(lines([message])).toEqual(['    hear  sentinel loop-detector → agent: try the other file']);
  });

  it("says a redo's text is in the redo's prompt, and what a crash carried over is (trial 17b L2)", () => {
    const judge = { kind: 'sentinel', sentinelId: 'judge' } as const;
    const redo = (dryRun: boolean) =>
      ev('sentinel.action', {
        sentinelId: 'judge',
        codonId: 'one',
        triggerNumber: 1,
        action: 'redo',
        dryRun,
        reason: 'text matches /REDO/',
        text: 'slow down',
      });
    const prompt = (text: string, from: MessageSender = judge) =>
      ev('codon.message', { codonId: 'one', text, from, delivery: 'prompt' });
    const client = { kind: 'client', clientId: 'c1' } as const;
    const heard = (events: ServerEvent[]) => lines(events).filter((l) => l.includes('hear'));
    expect(heard([redo(false), prompt('slow down')])).toEqual([
      "    hear  sentinel judge → agent: slow down (with the redo's prompt)",
    ]);
    // A crash carries over what the agent heard: a client's message, or a sentinel's that no redo said.
    expect(heard([prompt('first message', client), prompt('slow down')])).toEqual([
      '    hear  client c1 → agent: first message (in its prompt, carried over from the crashed run)',
      '    hear  sentinel judge → agent: slow down (in its prompt, carried over from the crashed run)',
    ]);
    // A dry run's redo took nothing; a redo's text is its prompt's once.
    expect(heard([redo(true), prompt('slow down')])[0]).toContain('carried over from the crashed run');
    expect(heard([redo(false), prompt('slow down'), prompt('slow down')])[1]).toContain(
      'carried over from the crashed run',
    );
  });

  it("names a client's message by the client's id: the log is no client", () => {
    const message = ev('codon.message', {
      codonId: 'one',
      text: 'use the other file',
      from: { kind: 'client', clientId: 'client-ee65aa1d-5b0c-4c9e-9d7e-0f1e2d3c4b5a' },
      delivery: 'live',
    });
    expect(lines([message])).toEqual(['    hear  client ee65aa1d → agent: use the other file']);
  });

  it('shows the control and bidirectional characters of what anyone wrote as stand-ins (trial 17b L4)', () => {
    const bidi = '\u202a\u202e\u2066\u2069\u200e\u200f\u061c';
    const text = `a${bidi}evil\u001b[31m red\u0007`;
    const shown = 'a<U+202A><U+202E><U+2066><U+2069><U+200E><U+200F><U+061C>evil red␇';
    const events = [
      ev('codon.message', {
        codonId: 'one',
        text,
        from: { kind: 'client', clientId: 'c1' },
        delivery: 'live',
      }),
      ev('assistant.action', { codonId: 'one', action: 'message', content: text }),
      ev('info', { message: text }),
      ev('error', { code: 'X', message: text, severity: 'warning', fatal: false }),
      // Names, paths and ids as a hostile server may send them: a title, the clipboard, a clear screen.
      ev('codon.started', {
        codonId: 'one\u001b[2J',
        codonName: 'x\u001b]0;pwned\u0007\u001b]52;c;cm0gLXJm\u0007\nfake line',
        sessionId: 's-1',
        startTime: '2026-01-01T00:00:00.000Z',
      }),
      ev('file.updated', { path: 'src/\u202etxt.exe', filename: 'x', content: '', action: 'created' }),
    ];
    expect(lines(events)).toEqual([
      `    hear  client c1 → agent: ${shown}`,
      `    says  ${shown}`,
      `  ${shown}`,
      `! [warning] ${shown}`,
      '> one␛[2J: x␛]0;pwned␇␛]52;c;cm0gLXJm␇␊fake line',
      '    file  created src/<U+202E>txt.exe',
    ]);
  });
});

describe('the console view of sentinel actions', () => {
  it('an action, a dry run, and an action that failed; other sentinel errors print nothing', () => {
    const action = ev('sentinel.action', {
      sentinelId: 'loop-detector',
      codonId: 'edit',
      triggerNumber: 1,
      action: 'message',
      dryRun: false,
      reason: 'repeating equals true',
      text: 'Stop listing the directory.',
    });
    const dry = ev('sentinel.action', {
      sentinelId: 'loop-detector',
      codonId: 'edit',
      triggerNumber: 3,
      action: 'halt',
      dryRun: true,
      reason: 'repeating equals true (3 times)',
    });
    const error = (errorType: 'action-failed' | 'llm-call-failed', message: string) =>
      ev('sentinel.error', {
        sentinelId: 'loop-detector',
        codonId: 'edit',
        errorType,
        message,
        retriable: false,
        consecutiveFailureCount: 0,
      });
    expect(
      lines([
        action,
        dry,
        error('action-failed', 'halt failed: codon edit is not running'),
        error('llm-call-failed', 'HTTP 529'),
      ]),
    ).toEqual([
      '    [loop-detector] message edit (repeating equals true): Stop listing the directory.',
      '    [loop-detector] would halt edit (repeating equals true (3 times))',
      '    [loop-detector] halt failed: codon edit is not running',
    ]);
  });
});

describe('the console view of a rollback (trial 17 M5)', () => {
  const rolledBack = () =>
    ev('rollback.completed', {
      fromRun: 'run-1',
      toRun: 'run-2',
      checkpoint: '0123456789abcdef0123456789abcdef01234567',
      codonId: 'work',
      codonName: 'Work',
      checkpointType: 'rig-setup',
      autoRestart: false,
    });

  it('says where the agent root went back to and which run goes on', () => {
    const done = rolledBack();
    expect(lines([done])).toEqual(['<< rolled back to work (rig-setup, checkpoint 0123456789ab): run run-2']);
  });

  it('says a rollback started, so one a crash cut short (no rollback.completed) is seen (issue 30 trial)', () => {
    const started = ev('rollback.started', {
      fromRun: 'run-1',
      fromCodon: 'three',
      toCodon: 'work',
      toCheckpoint: '0123456789abcdef0123456789abcdef01234567',
      checkpointType: 'rig-setup',
      codonsToProcess: ['three', 'two'],
    });
    const done = rolledBack();
    expect(lines([started])).toEqual(['<< rolling back to work (rig-setup, checkpoint 0123456789ab)...']);
    // A rollback that completed: a line each, its start and its end.
    expect(lines([started, done])).toEqual([
      '<< rolling back to work (rig-setup, checkpoint 0123456789ab)...',
      '<< rolled back to work (rig-setup, checkpoint 0123456789ab): run run-2',
    ]);
  });
});

describe('the console view of a sandbox refusal (trial 29 M2)', () => {
  it('prints a line naming the codon, what was refused and why, as `ribosome log` shows it', () => {
    const tunnel = ev('sandbox.denied', {
      codonId: 'probe',
      kind: 'connect',
      target: 'evil.example:443',
      reason: 'not in sandbox.network.allow',
      count: 1,
    });
    expect(lines([tunnel])).toEqual([
      '    ⊘ probe: the sandbox refused a connection to evil.example:443: not in sandbox.network.allow',
    ]);
  });
});

describe('the console view of tool calls (issue 30 M1)', () => {
  const bash = (command: string, id?: string) => toolCall('a', 'Bash', command, { command }, id);
  it("prints a call a crash cut short as ended with the codon, before the codon's end; the next attempt's calls pair by id", () => {
    const printed = lines([
      ...runStarted(),
      ...codonStart('a', 0),
      bash('sleep 8; echo slow-done', 'toolu_killed'),
      ...codonEnd('a', 'failed'),
      ...codonStart('a', 0),
      bash('sleep 8; echo slow-done', 'toolu_sleep'),
      bash('echo quick-done', 'toolu_quick'),
      toolDone('a', 'Bash', 'quick-done', false, 'toolu_quick'),
      ...codonEnd('a', 'completed'),
    ]);
    expect(printed.join('\n').split('\n')).toEqual([
      '> a: Codon a',
      '    tool  Bash sleep 8; echo slow-done',
      '    tool  Bash sleep 8; echo slow-done  · ended with the codon',
      '< a FAILED (2.1s, $0.0123): [unknown] it failed',
      '> a: Codon a',
      '    tool  Bash sleep 8; echo slow-done',
      '    tool  Bash echo quick-done',
      '    done  Bash: quick-done',
      '    tool  Bash sleep 8; echo slow-done  · ended with the codon',
      '< a completed (2.1s, $0.0123)',
    ]);
  });

  it("prints an agent translator's made-up result of a call cut short as ended with the codon, not fail", () => {
    const printed = lines([
      bash('sleep 300', 'item_1'),
      toolDone('a', 'Bash', ENDED_FROM_OUTSIDE, true, 'item_1'),
      ...codonEnd('a', 'stopped'),
    ]);
    expect(printed[1]).toBe('    tool  Bash sleep 300  · ended with the codon');
    expect(printed.join('\n')).not.toContain('fail');
  });
});

describe('the console view of review comments and reviews (ribosome log)', () => {
  it('says each comment and review, and that a codon’s prompt carries the review', () => {
    const by = { kind: 'client' as const, clientId: 'client-1a2b3c4d5e6f' };
    const comment = ev('review.comment', {
      commentId: 'c1',
      codonId: 'two',
      from: 'a'.repeat(40),
      to: 'b'.repeat(40),
      file: 'src/a.ts',
      side: 'new',
      lines: { start: 3, end: 5 },
      hunk: ' a\n+b\n+c\u001b[2J\n+d\n e',
      text: 'Name it better.',
      author: by,
    });
    const quoteShown = ['      │  a', '      │ +b', '      │ +c␛[2J', '      │ +d', '      │ …'];
    const sent = ev('review.sent', {
      reviewId: 'r1',
      codonId: 'two',
      to: 'next',
      commentIds: ['c1'],
      text: 'Review of the changes of codon two (1 comment).',
      targetCodonId: 'three',
      by,
    });
    const prompt = ev('codon.message', {
      codonId: 'three',
      text: sent.data.text,
      from: by,
      delivery: 'prompt',
    });
    const out = lines([comment, sent, prompt]);
    // The log is no client: every author by its id; the quote's first lines under the comment.
    expect(out[0]?.split('\n')[0]).toMatch(
      /^ {4}✎ client [0-9a-f]+ on two src\/a\.ts 3-5 \(new\): Name it better\.$/,
    );
    expect(out[0]?.split('\n').slice(1)).toEqual(quoteShown);
    expect(out[1]).toMatch(/sent the review of two into the next codon, three \(1 comment\)$/);
    expect(out[2]).toMatch(
      /Review of the changes of codon two \(1 comment\)\. \(the review, in its prompt\)$/,
    );
  });

  it('says when a codon starts again that its comments not sent are on an earlier run', () => {
    const by = { kind: 'client' as const, clientId: 'client-1a2b3c4d5e6f' };
    const comment = (commentId: string) =>
      ev('review.comment', {
        commentId,
        codonId: 'two',
        from: 'a'.repeat(40),
        to: 'b'.repeat(40),
        file: 'a.txt',
        side: 'new',
        lines: { start: 1, end: 1 },
        hunk: '+x',
        text: 'why?',
        author: by,
      });
    const sent = ev('review.sent', {
      reviewId: 'r1',
      codonId: 'two',
      to: 'message',
      commentIds: ['c1'],
      text: 'review',
      targetCodonId: 'three',
      by,
    });
    const started = ev('codon.started', {
      codonId: 'two',
      codonName: 'two',
      sessionId: 's',
      startTime: '2030-01-01T00:00:00.000Z',
    });
    const out = lines([comment('c1'), comment('c2'), comment('c3'), sent, started]);
    expect(out[3]).toMatch(/sent the review of two as a message to the agent of three \(1 comment\)$/);
    expect(out[4]?.split('\n')).toEqual([
      '> two: two',
      '    2 comments on two not sent are on an earlier run now (a review sends them only by id)',
    ]);
  });
});
