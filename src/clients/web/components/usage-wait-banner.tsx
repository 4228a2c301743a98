import type React from 'react';
import { displayLine } from '../../model/display-text.ts';
import { type UsageWait, usageWaitText } from '../../model/usage-wait.ts';

/**
 * The run waits for a usage limit to reset (docs/unattended.md#usage-limits): under the header, in the
 * theme's warn colour (light or dark), counted down from `now` (the page's clock ticks each second).
 * A page that may send commands is told that `n` (codon.next) starts the codon at once.
 */
export function UsageWaitBanner({
  wait,
  now,
  canControl,
}: {
  wait: UsageWait;
  now: number;
  canControl: boolean;
}): React.ReactElement {
  return (
    <div className="usage-wait" data-testid="usage-wait" role="status">
      {displayLine(usageWaitText(wait, now))}
      {canControl ? <span className="muted"> · n (next) starts {displayLine(wait.codonId)} now</span> : null}
    </div>
  );
}
