import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApprovalBanner } from '../../../src/clients/web/components/approval-banner.tsx';
import { Overview } from '../../../src/clients/web/components/overview.tsx';
import { ReviewPanel, SendReviewDialog } from '../../../src/clients/web/components/review.tsx';
import { initialDashboard, reduceDashboard } from '../../../src/clients/web/model/dashboard.ts';
import type { CommentView } from '../../../src/clients/web/model/review.ts';
import { codonStart, resetCost, runStarted } from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

beforeEach(() => resetCost());

const comment = (id: string, sent: CommentView['sent'] = []): CommentView => ({
  commentId: id,
  codonId: 'two',
  from: 'a'.repeat(40),
  to: 'b'.repeat(40),
  file: 'src/a.ts',
  side: 'new',
  lines: { start: 2, end: 3 },
  hunk: '+x\n+y',
  text: `text of ${id}`,
  author: { kind: 'client', clientId: 'client-me' },
  sent,
});

const html = (element: React.ReactElement) => renderToStaticMarkup(element);

describe('the review in the Changes view', () => {
  it("lists a codon's comments with their state; Send review is there while one is unsent", () => {
    const out = html(
      React.createElement(ReviewPanel, {
        codonId: 'two',
        comments: [comment('c1'), comment('c2', [{ reviewId: 'r', to: 'next', targetCodonId: 'three' }])],
        from: 'a'.repeat(8),
        to: 'b'.repeat(8),
        now: Date.now(),
        onSend: () => {},
        own: ['client-me'],
      }),
    );
    expect(out).toContain('2 comments · 1 unsent');
    expect(out).toContain('src/a.ts:2-3');
    expect(out).toMatch(/data-testid="comment-state">unsent</);
    expect(out).toMatch(/data-testid="comment-state">sent · next codon \(three\)</);
    expect(out).toContain('>you<');
    expect(out).not.toMatch(/data-testid="review-send"[^>]*disabled/);
  });

  it('read-only: the comments show, Send review is disabled and says why', () => {
    const out = html(
      React.createElement(ReviewPanel, {
        codonId: 'two',
        comments: [comment('c1')],
        from: '',
        to: '',
        now: Date.now(),
        cannot: 'read-only: this page can read the review, not write or send it',
      }),
    );
    expect(out).toContain('text of c1');
    expect(out).toMatch(/disabled="" title="read-only: this page can read the review, not write or send it"/);
    expect(out).toContain('data-testid="review-cannot"');
  });

  it('the send dialog offers a message to the running agent only while a codon runs', () => {
    const dialog = (running: string | undefined) =>
      html(
        React.createElement(SendReviewDialog, {
          codonId: 'two',
          comments: [comment('c1')],
          running,
          onSend: () => {},
          onClose: () => {},
        }),
      );
    expect(dialog(undefined)).toContain('unavailable: no codon is running');
    expect(dialog(undefined)).toContain('<input type="radio" disabled="" name="review-to" value="message"/>');
    expect(dialog('three')).toContain('Message to the running agent (three)');
    expect(dialog('three')).not.toContain('unavailable');
    expect(dialog(undefined)).toContain('1 unsent comment, each with its file, lines and the quoted lines.');
  });
});

describe('the approval banner', () => {
  const wait = {
    codonId: 'one',
    codonName: 'Design',
    since: new Date().toISOString(),
    approvers: 'control-clients' as const,
  };
  it('says which codon waits, with approve, request changes and roll back', () => {
    const out = html(
      React.createElement(ApprovalBanner, {
        wait,
        now: Date.now(),
        onApprove: () => {},
        onRequestChanges: () => {},
        onRollback: () => {},
      }),
    );
    expect(out).toContain('Waiting for approval of codon one (Design)');
    expect(out).toContain('Approve');
    expect(out).not.toContain('disabled');
  });

  it('read-only: shown, the buttons disabled with the reason', () => {
    const out = html(
      React.createElement(ApprovalBanner, {
        wait,
        now: Date.now(),
        cannot: 'read-only: only a page in control can approve',
        onApprove: () => {},
        onRequestChanges: () => {},
        onRollback: () => {},
      }),
    );
    expect(out.match(/disabled=""/g)).toHaveLength(3);
    expect(out).toContain('data-testid="approval-cannot"');
  });

  it("the overview's codon waits for approval (amber) and counts its comments", () => {
    const s = reduceDashboard(initialDashboard('ws://x'), {
      kind: 'events',
      events: [
        ...runStarted(),
        ...codonStart('one', 0),
        ev('approval.waiting', { ...wait, message: 'waiting for approval of codon one (Design)' }),
        ev('review.comment', (({ sent: _sent, ...c }) => ({ ...c, codonId: 'one' }))(comment('c1'))),
      ],
    });
    const out = html(
      React.createElement(Overview, { state: s, selected: undefined, onSelect: () => {}, now: Date.now() }),
    );
    expect(out).toMatch(
      /<span class="pill plain st-waiting"><span class="wide-only">waiting for approval<\/span><span class="narrow-only">awaits approval</,
    );
    expect(out).toMatch(/data-testid="codon-comments"[^>]*>✎ 1 · 1 unsent</);
  });
});
