import { type ErrorSeverity, suggestedAction } from '../../../../core/protocol/index.ts';
import { formatTime } from '../../../model/format.ts';
import type { RunState } from '../../../model/store/run-state.ts';
import type { Tone } from '../../../model/tone.ts';
import { type Line, wrapLine } from '../lines.ts';

const SEVERITY_TONE: Record<ErrorSeverity, Tone> = {
  fatal: 'bad',
  codon: 'bad',
  operation: 'warn',
  warning: 'warn',
};

/** The errors pane: severity, code and message, then the action spec section 7 suggests. */
export function errorLines(errors: RunState['errors'], width: number): Line[] {
  if (errors.length === 0) return [{ text: 'No errors.', tone: 'muted' }];
  return errors.flatMap((e): Line[] => [
    ...wrapLine(
      {
        text: `${e.severity.toUpperCase()} ${formatTime(e.timestamp)}${e.code ? ` ${e.code}` : ''}${e.command ? ` (${e.command})` : ''}: ${e.message}`,
        tone: SEVERITY_TONE[e.severity],
        bold: e.severity === 'fatal',
      },
      width,
    ),
    ...wrapLine(
      { text: `  → ${suggestedAction[e.severity]}${e.context ? ` [${e.context}]` : ''}`, tone: 'muted' },
      width,
      2,
      '    ',
    ),
  ]);
}
