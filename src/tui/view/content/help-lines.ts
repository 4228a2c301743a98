import { bindingsFor } from '../keymap.ts';
import type { Line } from '../lines.ts';
import { STATUS_ICON } from './codon-lines.ts';

/** The help screen: every key of the mode, and what the codon icons mean. */
export function helpLines(readonly: boolean, url: string): Line[] {
  const lines: Line[] = [
    {
      text: `Ribosome terminal UI · ${readonly ? 'read-only: no controls' : 'read-write'} · ${url}`,
      bold: true,
    },
    { text: '' },
  ];
  for (const b of bindingsFor(readonly)) lines.push({ text: `  ${b.keys.padEnd(6)} ${b.description}` });
  lines.push({ text: '' });
  lines.push({
    text: `  codons: ${Object.entries(STATUS_ICON)
      .map(([status, icon]) => `${icon} ${status}`)
      .join('  ')}`,
    tone: 'muted',
  });
  lines.push({ text: '  esc or ? closes this help', tone: 'muted' });
  return lines;
}
