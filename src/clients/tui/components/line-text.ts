import { Text } from 'ink';
import React from 'react';
import { displayLine } from '../../model/display-text.ts';
import { useTheme } from '../theme.ts';
import type { Line } from '../view/lines.ts';

const h = React.createElement;

/**
 * One line, cut at the pane's edge rather than wrapped, so pane heights never change. Every pane's
 * text passes here: a control or bidi character in it (a name, a path) is drawn as a stand-in.
 */
export function LineText({ line }: { line: Line }): React.ReactElement {
  const theme = useTheme();
  return h(
    Text,
    {
      wrap: 'truncate-end',
      color: theme.tone(line.tone),
      bold: line.bold === true,
      dimColor: theme.color && line.dim === true,
      inverse: line.highlight === true,
    },
    displayLine(line.text) || ' ',
  );
}
