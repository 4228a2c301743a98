import { Box, Text } from 'ink';
import React from 'react';
import { displayLine } from '../../model/display-text.ts';
import { useTheme } from '../theme.ts';
import { type LineList, windowLines } from '../view/lines.ts';
import { LineText } from './line-text.ts';

const h = React.createElement;

export type PaneProps = {
  title: string;
  info?: string;
  focused: boolean;
  width: number;
  height: number;
  /** A left border, for panes beside another. */
  border: boolean;
  lines: LineList;
  anchor: 'top' | 'bottom';
  scroll: number;
  /** A line to keep in view (the running codon, the selected entry). */
  keep?: number;
};

/** A titled pane of fixed size showing a window of its lines. */
export const Pane = React.memo(function Pane(p: PaneProps): React.ReactElement {
  const theme = useTheme();
  const inner = Math.max(1, p.width - (p.border ? 1 : 0));
  const window = windowLines(p.lines, p.height - 1, p.anchor, p.scroll, p.keep);
  const more = [window.above > 0 ? `↑${window.above}` : '', window.below > 0 ? `↓${window.below}` : '']
    .filter(Boolean)
    .join(' ');
  const head = displayLine(
    `${p.focused ? '▶' : '─'} ${p.title}${p.info ? ` · ${p.info}` : ''}${more ? ` (${more})` : ''} `,
  );
  const title = head.length >= inner ? head : head + '─'.repeat(inner - head.length);
  return h(
    Box,
    {
      width: p.width,
      height: p.height,
      flexDirection: 'column',
      overflow: 'hidden',
      ...(p.border
        ? {
            borderStyle: 'single',
            borderTop: false,
            borderBottom: false,
            borderRight: false,
            borderColor: theme.tone('muted'),
          }
        : {}),
    },
    h(
      Text,
      { wrap: 'truncate-end', bold: p.focused, color: theme.tone(p.focused ? 'accent' : 'muted') },
      title,
    ),
    ...window.lines.map((line, i) => h(LineText, { key: i, line })),
  );
});
