import { Box, Text } from 'ink';
import React from 'react';
import { useNow } from '../../hooks/use-now.ts';
import { approvalWaitText } from '../../model/approval-wait.ts';
import { displayLine } from '../../model/display-text.ts';
import { formatClock, formatDuration, formatTime, formatTokens } from '../../model/format.ts';
import { budgetLine } from '../../model/store/budget.ts';
import type { RunState } from '../../model/store/run-state.ts';
import { runWord } from '../../model/store/selectors.ts';
import { describeCost, totalTokens } from '../../model/store/totals.ts';
import { usageWaitText } from '../../model/usage-wait.ts';
import { useTheme } from '../theme.ts';
import { APPROVAL_KEY_WORDS } from '../view/approval-notice.ts';

const h = React.createElement;

export type HeaderProps = {
  connection: RunState['connection'];
  run: RunState['run'];
  proxy: string;
  /** The dashboard's address as printed (its key included): shown without the key, which the help has. */
  dashboard?: string;
  /** The terminal's columns: a narrow one gets the short form of a long state (a usage-limit wait). */
  width?: number;
  /** A readonly client sees an approval wait but cannot end it: the header says so instead of the keys. */
  readonly?: boolean;
};

/** From this many columns on, a usage-limit wait is said in full (else `usage limit: resets 15:00 (...)`). */
const FULL_WAIT_WIDTH = 110;

/** The dashboard's address for the header: a key (`?token=`) stays in the help, off the always-visible line. */
export function dashboardLabel(address: string): string {
  const at = address.indexOf('?');
  return at === -1 ? `dashboard ${address}` : `dashboard ${address.slice(0, at)} (its key: ? help)`;
}

/** Two lines: connection, run id and branch; then the run's state, cost, tokens, elapsed time and proxy. */
export const Header = React.memo(function Header({
  connection,
  run,
  proxy,
  dashboard,
  width,
  readonly = false,
}: HeaderProps): React.ReactElement {
  const theme = useTheme();
  const done = run.idle?.reason === 'all-codons-completed';
  // A usage-limit wait counts down each second, whatever the run's clock does.
  const ticking =
    (run.runStatus === 'running' && !done && connection.state === 'open') || run.usageWait !== undefined;
  const now = useNow(1_000, ticking);
  const lost = connection.state === 'reconnecting' || connection.state === 'closed';
  const first = lost
    ? h(
        Text,
        { wrap: 'truncate-end', bold: true, inverse: true, color: theme.tone('bad') },
        displayLine(
          connection.state === 'closed'
            ? ` ✗ DISCONNECTED from ${connection.url}${connection.lostAt ? ` at ${formatTime(connection.lostAt)}` : ''}; the server is gone — press q to quit `
            : ` ✗ CONNECTION LOST to ${connection.url}${connection.lostAt ? ` at ${formatTime(connection.lostAt)}` : ''} — reconnecting… `,
        ),
      )
    : h(
        Text,
        { wrap: 'truncate-end' },
        h(Text, { bold: true, color: theme.tone('accent') }, 'Ribosome'),
        `  ${connection.state === 'open' ? '● connected' : `○ ${connection.state}`}`,
        // A server's words: its ids shown, never obeyed (display-text.ts).
        displayLine(`  run ${run.runId ?? 'unknown'}`),
        displayLine(`  branch ${run.branch || 'unknown'}`),
        dashboard ? displayLine(`  ${dashboardLabel(dashboard)}`) : '',
      );
  const tokens = totalTokens(run);
  const started = run.startedAt ? Date.parse(run.startedAt) : undefined;
  // The clock stops when the run ends or the plan has run; an idle server between codons keeps it going.
  const end = run.endedAt ? Date.parse(run.endedAt) : done && run.idle ? Date.parse(run.idle.at) : now;
  const elapsed = started === undefined ? '--:--' : formatClock(end - started);
  const cache = tokens.cacheRead + tokens.cacheCreation;
  const budget = budgetLine(run, tokens.output, now);
  // What the run is doing (and what runs next) comes first: the line is cut at the right edge.
  // A person's turn first: an approval wait and what this client can do about it.
  const approval = run.approvalWait
    ? displayLine(
        `${approvalWaitText(run.approvalWait)}: ${readonly ? 'this client is read-only and cannot approve' : APPROVAL_KEY_WORDS}`,
      )
    : undefined;
  const wait =
    approval ??
    (run.usageWait
      ? displayLine(
          usageWaitText(run.usageWait, now, { short: (width ?? FULL_WAIT_WIDTH) < FULL_WAIT_WIDTH }),
        )
      : undefined);
  const before = displayLine(`${wait ? '' : `${runWord(run)}  `}cost ${describeCost(run)}  `);
  const after = [
    `tokens ${formatTokens(tokens.input)} in · ${formatTokens(tokens.output)} out${cache > 0 ? ` · ${formatTokens(cache)} cache` : ''}`,
    `elapsed ${elapsed}`,
    `proxy ${proxy}`,
    run.workTime === undefined ? '' : `work ${formatDuration(run.workTime)}`,
  ]
    .filter(Boolean)
    .join('  ');
  const second = h(
    Text,
    { wrap: 'truncate-end' },
    wait ? h(Text, { color: theme.tone('warn'), bold: true }, wait) : '',
    wait ? '  ' : '',
    before,
    budget ? h(Text, { color: theme.tone(budget.tone), bold: budget.tone !== undefined }, budget.text) : '',
    budget ? '  ' : '',
    after,
  );
  return h(Box, { flexDirection: 'column' }, first, second);
});
