import type React from 'react';
import { agoWords, clockWords, fullDate } from '../model/time-words.ts';

/** A moment: `12:03:41` (with `ago`: `12:03:41 · 2 m ago`), the full date on hover. */
export function Time({ iso, now, ago }: { iso: string; now: number; ago?: boolean }): React.ReactElement {
  return (
    <time dateTime={iso} title={fullDate(iso)}>
      {clockWords(iso, now)}
      {ago ? <span className="muted"> · {agoWords(iso, now)}</span> : null}
    </time>
  );
}
