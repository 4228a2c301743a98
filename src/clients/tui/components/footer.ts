import { Box, Text } from 'ink';
import React from 'react';
import { MESSAGE_MAX_BYTES } from '../../../core/protocol/index.ts';
import { displayLine } from '../../model/display-text.ts';
import type { RunState } from '../../model/store/run-state.ts';
import { useTheme } from '../theme.ts';
import { helpLine } from '../view/keymap.ts';
import type { Modal } from '../view/view-state.ts';

const h = React.createElement;
const LIMIT = `${MESSAGE_MAX_BYTES / 1024} KiB`;

/** How much of a message's limit the text takes, once it takes a noticeable part ("3.2 of 32 KiB · "). */
function messageSize(text: string): string {
  const bytes = text.length * 3 < 1024 ? text.length : Buffer.byteLength(text, 'utf8');
  return bytes < 1024 ? '' : `${(bytes / 1024).toFixed(1)} of ${LIMIT} · `;
}

export type FooterProps = {
  notice: RunState['notice'];
  modal: Modal | undefined;
  readonly: boolean;
  width: number;
  /** The codon codon.next starts, when the server said (server.idle nextCodonId). */
  next?: string;
  /** A codon runs: the message prompt says at once when none does (the server would refuse it). */
  codonRunning?: boolean;
  /** A codon waits for approval: the help line leads with its keys. */
  approving?: boolean;
  /** The send-review prompt: how many comments a review without ids sends (not sent, made since the codon's latest start). */
  reviewCount?: number;
};

/** What the send-review prompt sends: `2 comments not sent yet`, or that there is none (the server refuses it). */
function reviewWords(count: number | undefined): string {
  if (count === undefined) return 'its comments not sent yet';
  if (count === 0) return 'none not sent since its latest start: name comments over the protocol';
  return `${count === 1 ? '1 comment' : `${count} comments`} not sent yet`;
}

/** The status line (latest news, or the open prompt) above the help line (mode and keys). */
export const Footer = React.memo(function Footer({
  notice,
  modal,
  readonly,
  width,
  next,
  codonRunning = true,
  approving = false,
  reviewCount,
}: FooterProps): React.ReactElement {
  const theme = useTheme();
  let status: React.ReactElement;
  if (modal?.kind === 'forceStop') {
    status = h(
      Text,
      { wrap: 'truncate-start' },
      h(Text, { bold: true, color: theme.tone('warn') }, 'Force stop — reason: '),
      displayLine(modal.reason),
      h(Text, { inverse: true }, ' '),
      h(Text, { color: theme.tone('muted') }, '  (enter: stop · esc: cancel)'),
    );
  } else if (modal?.kind === 'message') {
    status = h(
      Text,
      { wrap: 'truncate-start' },
      codonRunning
        ? h(Text, { bold: true, color: theme.tone('accent') }, 'Message to the agent: ')
        : h(
            Text,
            { bold: true, color: theme.tone('warn') },
            'Message to the agent (no codon is running: the server refuses it until one runs; esc keeps it): ',
          ),
      displayLine(modal.text),
      h(Text, { inverse: true }, ' '),
      modal.cut ? h(Text, { color: theme.tone('warn') }, `  cut at the message limit (${LIMIT})`) : '',
      h(Text, { color: theme.tone('muted') }, `  (${messageSize(modal.text)}enter: send · esc: close, kept)`),
    );
  } else if (modal?.kind === 'sendReview') {
    status = h(
      Text,
      { wrap: 'truncate-end', bold: true, color: theme.tone('accent') },
      displayLine(
        `Send the review of ${modal.codonId} (${reviewWords(reviewCount)}):  r: redo it from its start  m: message the running agent  n: the next codon  esc: cancel`,
      ),
    );
  } else if (modal?.kind === 'confirmRollback') {
    status = h(
      Text,
      { wrap: 'truncate-end', bold: true, color: theme.tone('warn') },
      displayLine(`Roll back to ${modal.target.label}?  y: yes  a: yes, then restart  n: no`),
    );
  } else {
    status = h(
      Text,
      { wrap: 'truncate-end', color: theme.tone(notice?.tone) },
      notice?.text === undefined ? ' ' : displayLine(notice.text),
    );
  }
  return h(
    Box,
    { flexDirection: 'column', width },
    status,
    h(
      Text,
      { wrap: 'truncate-end', color: theme.tone('muted') },
      displayLine(helpLine(readonly, width, next, modal?.kind, approving)),
    ),
  );
});
