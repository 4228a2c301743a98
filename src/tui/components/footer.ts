import { Box, Text } from 'ink';
import React from 'react';
import type { RunState } from '../store/run-state.ts';
import { useTheme } from '../theme.ts';
import { helpLine } from '../view/keymap.ts';
import type { Modal } from '../view/view-state.ts';

const h = React.createElement;

export type FooterProps = {
  notice: RunState['notice'];
  modal: Modal | undefined;
  readonly: boolean;
  width: number;
  /** The codon codon.next starts, when the server said (server.idle nextCodonId). */
  next?: string;
  /** A codon runs: the message prompt says at once when none does (the server would refuse it). */
  codonRunning?: boolean;
};

/** The status line (latest news, or the open prompt) above the help line (mode and keys). */
export const Footer = React.memo(function Footer({
  notice,
  modal,
  readonly,
  width,
  next,
  codonRunning = true,
}: FooterProps): React.ReactElement {
  const theme = useTheme();
  let status: React.ReactElement;
  if (modal?.kind === 'forceStop') {
    status = h(
      Text,
      { wrap: 'truncate-start' },
      h(Text, { bold: true, color: theme.tone('warn') }, 'Force stop — reason: '),
      modal.reason,
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
      modal.text,
      h(Text, { inverse: true }, ' '),
      h(Text, { color: theme.tone('muted') }, '  (enter: send · esc: cancel)'),
    );
  } else if (modal?.kind === 'confirmRollback') {
    status = h(
      Text,
      { wrap: 'truncate-end', bold: true, color: theme.tone('warn') },
      `Roll back to ${modal.target.label}?  y: yes  a: yes, then restart  n: no`,
    );
  } else {
    status = h(Text, { wrap: 'truncate-end', color: theme.tone(notice?.tone) }, notice?.text ?? ' ');
  }
  return h(
    Box,
    { flexDirection: 'column', width },
    status,
    h(
      Text,
      { wrap: 'truncate-end', color: theme.tone('muted') },
      helpLine(readonly, width, next, modal?.kind),
    ),
  );
});
