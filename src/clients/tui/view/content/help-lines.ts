import { ESTIMATE_LEGEND } from '../../../../llm/estimated-cost.ts';
import { bindingsFor, type QuitMode } from '../keymap.ts';
import type { Line } from '../lines.ts';
import { STATUS_ICON } from './codon-lines.ts';

/**
 * The help screen: every key of the mode, and what the codon icons mean; `said` first (the
 * dashboard's address, what the start resumed: printed before the UI's screen hid them).
 */
export function helpLines(
  readonly: boolean,
  url: string,
  quit: QuitMode = 'ui',
  said: readonly string[] = [],
): Line[] {
  const lines: Line[] = [
    {
      // How to close it comes first: a help longer than the terminal is cut at its foot.
      text: `Ribosome terminal UI · ${readonly ? 'read-only: no controls' : 'read-write'} · esc or ? closes this help · ${url}`,
      bold: true,
    },
    ...said.map((text): Line => ({ text, tone: 'accent' })),
    { text: '' },
  ];
  for (const b of bindingsFor(readonly, quit)) lines.push({ text: `  ${b.keys.padEnd(6)} ${b.description}` });
  lines.push({ text: '' });
  lines.push({
    text: `  codons: ${Object.entries(STATUS_ICON)
      .map(([status, icon]) => `${icon} ${status}`)
      .join('  ')}`,
    tone: 'muted',
  });
  lines.push({ text: `  costs: ${ESTIMATE_LEGEND}`, tone: 'muted' });
  return lines;
}
