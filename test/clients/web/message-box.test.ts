import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import type { MessageBox, MessageTarget } from '../../../src/clients/web/components/message-box.tsx';
import { Overview } from '../../../src/clients/web/components/overview.tsx';
import { initialDashboard, reduceDashboard } from '../../../src/clients/web/model/dashboard.ts';
import { codonStart, resetCost, runStarted } from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

beforeEach(() => resetCost());

const running = () => {
  const connected = reduceDashboard(initialDashboard('ws://x'), {
    kind: 'connection',
    state: 'open',
    at: '2025-01-01T00:00:00.000Z',
    clientId: 'client-me',
  });
  return reduceDashboard(connected, {
    kind: 'events',
    events: [
      ...runStarted(),
      ...codonStart('one', 0),
      ev('codon.message', {
        codonId: 'one',
        text: 'use the other file',
        from: { kind: 'client', clientId: 'client-me' },
        delivery: 'live',
      }),
      ev('codon.message', {
        codonId: 'one',
        text: 'you are repeating yourself',
        from: { kind: 'sentinel', sentinelId: 'loop-detector' },
        delivery: 'next-turn',
      }),
      ev('codon.message', {
        codonId: 'one',
        text: 'hello from elsewhere',
        from: { kind: 'client', clientId: 'client-other' },
        delivery: 'live',
      }),
    ],
  });
};

describe('messages to the agent on the dashboard', () => {
  it('lists each codon.message in the activity, saying who sent it', () => {
    const rows = running().log.rows.filter((r) => r.kind === 'message');
    expect(rows.map((r) => [r.codonId, r.text, r.detail])).toEqual([
      ['one', 'you → agent: use the other file', 'use the other file'],
      [
        'one',
        'sentinel loop-detector → agent: you are repeating yourself (a new turn)',
        'you are repeating yourself',
      ],
      ['one', 'client other → agent: hello from elsewhere', 'hello from elsewhere'],
    ]);
  });

  it('shows a message box on the overview only when the page may send (not readonly), disabled with the reason when no codon runs', () => {
    const state = running();
    const render = (message?: React.ComponentProps<typeof MessageBox>) =>
      renderToStaticMarkup(
        React.createElement(Overview, {
          state,
          selected: 'one',
          onSelect: () => {},
          now: Date.parse('2025-01-01T00:01:00.000Z'),
          ...(message ? { message } : {}),
        }),
      );
    const box = (target: MessageTarget, text = 'go on') => ({
      target,
      text,
      setText: () => {},
      onSend: () => {},
    });
    const withBox = render(box({ codonId: 'one' }));
    expect(withBox).toContain('data-testid="message-box"');
    expect(withBox).toContain('message to the agent of <b>one</b>');
    expect(withBox).toMatch(/<button type="submit" data-testid="message-send">send/);
    expect(render()).not.toContain('message-box');
    // No codon runs: the box stays, says why, keeps the text; send is disabled.
    const idle = render(box({ unavailable: 'no codon is running' }));
    expect(idle).toContain(
      '<span class="tone-muted" data-testid="message-unavailable">no codon is running</span>',
    );
    expect(idle).toContain('value="go on"');
    expect(idle).toMatch(
      /<button type="submit" data-testid="message-send" disabled="" title="no codon is running">send/,
    );
  });
});
