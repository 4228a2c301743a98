import { formatDuration, oneLine, wrapText } from '../../format.ts';
import type { ActivityEntry } from '../../store/run-state.ts';
import type { Line } from '../lines.ts';

/** The activity pane: one line per entry, collapsed; the selected or expanded entries in full. */

const TAG: Record<ActivityEntry['kind'], string> = {
  codon: '',
  message: 'say  ',
  thinking: 'think',
  tool: 'tool ',
  file: 'file ',
  note: '',
};

const MAX_EXPANDED_LINES = 60;
const INDENT = '        ';

export type ActivityLines = { lines: Line[]; cursorLine?: number };

export function isExpandable(entry: ActivityEntry, width: number): boolean {
  switch (entry.kind) {
    case 'message':
    case 'thinking':
      return entry.text.includes('\n') || entry.text.length + 9 > width;
    case 'tool':
      return true;
    case 'file':
      return entry.content.length > 0;
    default:
      return false;
  }
}

function summary(entry: ActivityEntry): { text: string; tone?: Line['tone']; dim?: boolean; bold?: boolean } {
  switch (entry.kind) {
    case 'codon':
      return { text: entry.text, tone: entry.tone, bold: true };
    case 'note':
      return { text: entry.text, tone: entry.tone };
    case 'message':
      return { text: oneLine(entry.text) };
    case 'thinking':
      return { text: oneLine(entry.text), tone: 'muted', dim: true };
    case 'file':
      return { text: `${entry.action} ${entry.path}`, tone: 'info' };
    case 'tool': {
      const r = entry.result;
      const state = !r
        ? '… running'
        : r.isError
          ? `✗ failed ${formatDuration(r.ms)}`
          : `✓ ${formatDuration(r.ms)}`;
      return {
        text: `${entry.toolName} ${oneLine(entry.summary, 200)}  ${state}`,
        tone: !r ? 'accent' : r.isError ? 'bad' : 'plain',
      };
    }
  }
}

function details(entry: ActivityEntry, width: number): Line[] {
  const w = Math.max(10, width - INDENT.length);
  const block = (text: string, tone?: Line['tone']) =>
    wrapText(text, w, MAX_EXPANDED_LINES).map((t): Line => ({ text: INDENT + t, ...(tone ? { tone } : {}) }));
  switch (entry.kind) {
    case 'message':
    case 'thinking':
      return block(entry.text, entry.kind === 'thinking' ? 'muted' : undefined);
    case 'file':
      return block(entry.content, 'muted');
    case 'tool': {
      const out: Line[] = [];
      if (entry.input) out.push(...block(`input ${JSON.stringify(entry.input, null, 2)}`, 'muted'));
      const r = entry.result;
      if (!r) out.push({ text: `${INDENT}(no result yet)`, tone: 'muted' });
      else {
        out.push(...block(r.text || '(empty result)', r.isError ? 'bad' : undefined));
        if (r.truncated)
          out.push({
            text: `${INDENT}(result cut at ${r.text.length} of ${r.originalLength} characters)`,
            tone: 'muted',
          });
      }
      return out;
    }
    default:
      return [];
  }
}

export function activityLines(
  entries: readonly ActivityEntry[],
  options: { width: number; expanded: Readonly<Record<string, true>>; cursor?: string; dropped?: number },
): ActivityLines {
  const lines: Line[] = [];
  // The pane keeps the newest entries only: say how many came before them.
  if (options.dropped)
    lines.push({
      text: ` … ${options.dropped.toLocaleString('en-US')} earlier entries not kept (the last ${entries.length.toLocaleString('en-US')} are)`,
      tone: 'muted',
    });
  let cursorLine: number | undefined;
  for (const entry of entries) {
    const selected = entry.id === options.cursor;
    const expandable = isExpandable(entry, options.width);
    const open = expandable && options.expanded[entry.id] === true;
    const s = summary(entry);
    const marker = expandable ? (open ? '−' : '+') : ' ';
    const tag = TAG[entry.kind];
    if (selected) cursorLine = lines.length;
    lines.push({
      text: `${selected ? '›' : ' '}${marker}${tag ? `${tag} ` : ''}${s.text}`,
      ...(s.tone ? { tone: s.tone } : {}),
      ...(s.dim ? { dim: true } : {}),
      ...(s.bold ? { bold: true } : {}),
      ...(selected ? { highlight: true } : {}),
    });
    if (open) lines.push(...details(entry, options.width));
  }
  if (lines.length === 0) lines.push({ text: ' Waiting for the agent…', tone: 'muted' });
  return { lines, ...(cursorLine === undefined ? {} : { cursorLine }) };
}
