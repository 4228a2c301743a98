import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import {
  codonComments,
  commentCounts,
  commentLine,
  onEarlierRun,
  reviewSentLine,
  sentMark,
  unsentComments,
} from '../../../src/clients/model/store/reviews.ts';
import { initialRunState, type RunState } from '../../../src/clients/model/store/run-state.ts';
import type { EventData, ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonStart, runStarted } from './helpers/events.ts';
import { ev } from './helpers/fake-client.ts';

const fold = (events: ServerEvent[], state: RunState = initialRunState('ws://x')) =>
  foldEvents(state, events);

const comment = (
  commentId: string,
  over: Partial<EventData<'review.comment'>> = {},
): EventData<'review.comment'> => ({
  commentId,
  codonId: 'two',
  from: 'a'.repeat(40),
  to: 'b'.repeat(40),
  file: 'src/a.ts',
  side: 'new',
  lines: { start: 3, end: 5 },
  hunk: ' x\n+y\n z',
  text: 'name this better',
  author: { kind: 'client', clientId: 'me' },
  ...over,
});

const sent = (over: Partial<EventData<'review.sent'>> = {}): EventData<'review.sent'> => ({
  reviewId: 'r1',
  codonId: 'two',
  to: 'redo',
  commentIds: ['c1'],
  text: 'the review',
  targetCodonId: 'two',
  by: { kind: 'client', clientId: 'me' },
  ...over,
});

/** Before and after the codon's start in `connected` (its startTime is now). */
const EARLIER = '2000-01-01T00:00:00.000Z';
const LATER = '2999-01-01T00:00:00.000Z';

const connected = () =>
  reduceRun(fold([...runStarted(), ...codonStart('two', 1)]), {
    kind: 'connection',
    state: 'open',
    at: 't',
    clientId: 'me',
  });

describe('review comments in the client model', () => {
  it('lists each codon’s comments in order, once each, and marks those a review sent with where it went', () => {
    let s = fold(
      [
        ev('review.comment', comment('c1'), LATER),
        ev('review.comment', comment('c2', { side: 'old', lines: { start: 7, end: 7 } }), LATER),
        ev('review.comment', comment('c3', { codonId: 'one' }), LATER),
      ],
      connected(),
    );
    // The same event folded again (a history sync over live events) is one comment.
    s = fold([ev('review.comment', comment('c1'), LATER)], s);
    expect(codonComments(s, 'two').map((c) => c.commentId)).toEqual(['c1', 'c2']);
    expect(commentCounts(s)).toEqual({ two: { total: 2, unsent: 2 }, one: { total: 1, unsent: 1 } });

    s = fold([ev('review.sent', sent({ to: 'next', targetCodonId: 'three', commentIds: ['c1'] }))], s);
    expect(unsentComments(s, 'two').map((c) => c.commentId)).toEqual(['c2']);
    const [first] = codonComments(s, 'two');
    expect(first?.sent).toMatchObject([{ reviewId: 'r1', to: 'next', targetCodonId: 'three' }]);
    expect(sentMark(first!.sent[0]!)).toBe('carried into three');
    expect(sentMark({ reviewId: 'r', to: 'message', targetCodonId: 'three', at: 't' })).toBe(
      'sent as a message to three',
    );
    expect(sentMark({ reviewId: 'r', to: 'redo', targetCodonId: 'two', at: 't' })).toBe('sent: redo');
    expect(commentCounts(s).two).toEqual({ total: 2, unsent: 1 });
    expect(codonComments(s, 'nope')).toEqual([]);
  });

  it('marks a comment not sent from before its codon’s latest start as on an earlier run: a review without ids leaves it', () => {
    const s = fold(
      [ev('review.comment', comment('old'), EARLIER), ev('review.comment', comment('new'), LATER)],
      connected(),
    );
    const [old, fresh] = codonComments(s, 'two');
    const startTime = s.codons.two?.startTime;
    expect(onEarlierRun(old!, startTime)).toBe(true);
    expect(onEarlierRun(fresh!, startTime)).toBe(false);
    expect(unsentComments(s, 'two').map((c) => c.commentId)).toEqual(['new']);
  });

  it('says comments and reviews readably in the activity, with who wrote them', () => {
    const s = fold(
      [
        ev('review.comment', comment('c1')),
        ev(
          'review.comment',
          comment('c2', { author: { kind: 'sentinel', sentinelId: 'lint' }, lines: { start: 4, end: 4 } }),
        ),
        ev('review.sent', sent({ commentIds: ['c1', 'c2'] })),
      ],
      connected(),
    );
    const notes = s.activity.filter((a) => a.kind === 'note').map((a) => (a.kind === 'note' ? a.text : ''));
    expect(notes).toContain('✎ you on two src/a.ts 3-5 (new): name this better');
    expect(notes).toContain('✎ sentinel lint on two src/a.ts 4 (new): name this better');
    expect(notes).toContain('✉ you sent the review of two to a redo of two (2 comments)');
    // The log is no client: every author by its id.
    expect(commentLine(comment('c9'), 'record')).toBe(
      '✎ client me on two src/a.ts 3-5 (new): name this better',
    );
    // The agent that took it: targetCodonId, not the codon reviewed.
    expect(reviewSentLine(sent({ to: 'message', targetCodonId: 'three' }), ['other'])).toBe(
      '✉ client me sent the review of two as a message to the agent of three (1 comment)',
    );
  });

  it('answers our own comment and review commands, not another client’s', () => {
    let s = reduceRun(connected(), {
      kind: 'commandSent',
      id: 'k1',
      type: 'review.comment',
      label: 'comment on two src/a.ts',
    });
    s = reduceRun(s, { kind: 'commandSent', id: 'k2', type: 'review.submit', label: 'send the review' });
    s = fold([ev('review.comment', comment('c1', { author: { kind: 'client', clientId: 'other' } }))], s);
    s = fold([ev('review.sent', sent({ by: { kind: 'client', clientId: 'other' } }))], s);
    expect(s.commands.map((c) => c.status)).toEqual(['sent', 'sent']);
    s = fold([ev('review.comment', comment('c2')), ev('review.sent', sent({ reviewId: 'r2' }))], s);
    expect(s.commands.map((c) => c.status)).toEqual(['answered', 'answered']);
  });
});
