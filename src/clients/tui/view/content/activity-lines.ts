import { ENDED_WITH_CODON, fileChangeText, oneLine, toolCallMark } from '../../../model/format.ts';
import type { ActivityEntry } from '../../../model/store/run-state.ts';
import { wrapText } from '../fit-text.ts';
import type { Line, LineList } from '../lines.ts';

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

export type ActivityLines = { lines: LineList; cursorLine?: number };

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

/** A tool call's line by its mark: a call that ended with its codon is no failure, nor done. */
const MARK_TONES: Record<ReturnType<typeof toolCallMark>['state'], Line['tone']> = {
  done: 'plain',
  failed: 'bad',
  ended: 'muted',
  running: 'accent',
};

/** Columns a summary line spends before its text: the cursor, the expand marker, the tag and a space. */
const LEAD = 2 + TAG.tool.length + 1;

/**
 * `width`: the pane's; a tool's line fits its command (or path) to it, so its result mark (✓ ✗) at
 * the end stays in sight.
 */
function summary(
  entry: ActivityEntry,
  width: number,
): { text: string; tone?: Line['tone']; dim?: boolean; bold?: boolean } {
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
      return { text: fileChangeText(entry), tone: entry.ignored ? 'muted' : 'info' };
    case 'tool': {
      const mark = toolCallMark(entry);
      const room = width - LEAD - entry.toolName.length - 1 - 2 - mark.text.length;
      return {
        text: `${entry.toolName} ${oneLine(entry.summary, Math.max(8, Math.min(200, room)))}  ${mark.text}`,
        tone: MARK_TONES[mark.state],
      };
    }
  }
}

function detailLines(entry: ActivityEntry, width: number): Line[] {
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
      if (!r)
        out.push({
          text: `${INDENT}(${entry.endedWithCodon ? `no result: ${ENDED_WITH_CODON}` : 'no result yet'})`,
          tone: 'muted',
        });
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

/**
 * The pane's lines, made as they are shown: a thousand entries are a thousand lines, and a frame
 * shows a few dozen of them. Making every one on every frame (a batch of live events is a frame)
 * was most of what the UI allocated while messages streamed, and it lived long enough for the
 * collector to promote it. Expanded entries are few: their detail lines are made at once.
 */
export function activityLines(
  entries: readonly ActivityEntry[],
  options: { width: number; expanded: Readonly<Record<string, true>>; cursor?: string; dropped?: number },
): ActivityLines {
  // The pane keeps the newest entries only: say how many came before them.
  const header: Line | undefined = options.dropped
    ? {
        text: ` … ${options.dropped.toLocaleString('en-US')} earlier entries not kept (the last ${entries.length.toLocaleString('en-US')} are)`,
        tone: 'muted',
      }
    : undefined;
  if (entries.length === 0 && !header) {
    const waiting: Line[] = [{ text: ' Waiting for the agent…', tone: 'muted' }];
    return { lines: waiting };
  }
  const first = header ? 1 : 0;
  const details = new Map<number, Line[]>();
  let cursor = -1;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.id === options.cursor) cursor = i;
    if (options.expanded[entry.id] === true && isExpandable(entry, options.width)) {
      const more = detailLines(entry, options.width);
      if (more.length > 0) details.set(i, more);
    }
  }
  // Where each entry's first line is, when some entry has more than one.
  let starts: number[] | undefined;
  let length = first + entries.length;
  if (details.size > 0) {
    starts = new Array<number>(entries.length);
    let at = first;
    for (let i = 0; i < entries.length; i++) {
      starts[i] = at;
      at += 1 + (details.get(i)?.length ?? 0);
    }
    length = at;
  }
  const startOf = (i: number) => (starts ? (starts[i] ?? length) : first + i);
  const entryAt = (line: number) => {
    if (!starts) return line - first;
    let lo = 0;
    let hi = entries.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= line) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const summaryLine = (i: number): Line => {
    const entry = entries[i]!;
    const selected = i === cursor;
    const expandable = isExpandable(entry, options.width);
    const marker = expandable ? (options.expanded[entry.id] === true ? '−' : '+') : ' ';
    const s = summary(entry, options.width);
    const tag = TAG[entry.kind];
    return {
      text: `${selected ? '›' : ' '}${marker}${tag ? `${tag} ` : ''}${s.text}`,
      ...(s.tone ? { tone: s.tone } : {}),
      ...(s.dim ? { dim: true } : {}),
      ...(s.bold ? { bold: true } : {}),
      ...(selected ? { highlight: true } : {}),
    };
  };
  const lines: LineList = {
    length,
    slice(from = 0, to = length) {
      const end = Math.min(length, to < 0 ? length + to : to);
      let line = Math.max(0, from < 0 ? length + from : from);
      const out: Line[] = [];
      if (line === 0 && header && line < end) {
        out.push(header);
        line++;
      }
      for (let i = entryAt(line); line < end && i < entries.length; i++) {
        const more = details.get(i);
        for (let j = line - startOf(i); j <= (more?.length ?? 0) && line < end; j++, line++)
          out.push(j === 0 ? summaryLine(i) : more![j - 1]!);
      }
      return out;
    },
  };
  return { lines, ...(cursor < 0 ? {} : { cursorLine: startOf(cursor) }) };
}
