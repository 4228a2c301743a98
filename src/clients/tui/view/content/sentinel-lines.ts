import { own } from '../../../../core/protocol/index.ts';
import { formatCost, formatTime } from '../../../model/format.ts';
import type { RunState } from '../../../model/store/run-state.ts';
import { type Line, wrapLine } from '../lines.ts';

type Dated = { at: string; line: Line };

/** The sentinels pane: each sentinel with its state, then its outputs and errors, newest last. */
export function sentinelLines(state: Pick<RunState, 'sentinels' | 'sentinelOrder'>, width: number): Line[] {
  if (state.sentinelOrder.length === 0) return [{ text: 'No sentinel has loaded.', tone: 'muted' }];
  const lines: Line[] = [];
  for (const id of state.sentinelOrder) {
    const s = own(state.sentinels, id);
    if (!s) continue;
    const what = [s.model, s.strategy].filter(Boolean).join(', ');
    const status = s.status === 'loaded' ? 'watching' : `unloaded (${s.unloadReason ?? 'done'})`;
    lines.push(
      ...wrapLine(
        {
          text: `● ${s.sentinelId} ${status} · codon ${s.codonId}${what ? ` · ${what}` : ''} · ${formatCost(s.cost)}, ${s.calls} call(s)`,
          tone: s.status === 'loaded' ? 'accent' : 'muted',
          bold: true,
        },
        width,
        2,
      ),
    );
    const outputs = s.outputs.map(
      (o): Dated => ({
        at: o.timestamp,
        line: { text: `  ${o.codonId} #${o.triggerNumber} ${formatTime(o.timestamp)} ${o.text}` },
      }),
    );
    const errors = s.errors.map(
      (e): Dated => ({
        at: e.timestamp,
        line: {
          text: `  ! ${formatTime(e.timestamp)} ${e.text}${e.retriable ? ' (retriable)' : ''}${e.consecutive > 1 ? `, ${e.consecutive} in a row` : ''}`,
          tone: 'bad',
        },
      }),
    );
    const items = [...outputs, ...errors].sort((a, b) => a.at.localeCompare(b.at));
    // Only the newest outputs are kept (MAX_SENTINEL_OUTPUTS): say so before them, and where the rest are.
    const older = s.calls - s.outputs.length;
    if (older > 0)
      lines.push({
        text: `  … ${older.toLocaleString('en-US')} earlier output(s) not kept here (ribosome log has every one)`,
        tone: 'muted',
        dim: true,
      });
    if (items.length === 0) lines.push({ text: '  no output yet', tone: 'muted', dim: true });
    for (const item of items) lines.push(...wrapLine(item.line, width, 3, '     '));
  }
  return lines;
}
