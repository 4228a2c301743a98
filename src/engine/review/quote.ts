import {
  type DiffFile,
  type DiffLine,
  REVIEW_HUNK_MAX_BYTES,
  type ReviewLines,
  type ReviewSide,
} from '../../core/protocol/index.ts';

/**
 * The quote of a comment (docs/review.md#comments): the commented lines of one side of a file's diff,
 * as the diff shows them (`+`, `-` or a space before each, the other side's lines between them
 * included), with one line of the diff around, cut at REVIEW_HUNK_MAX_BYTES. Lines the diff does not
 * show on that side are refused, saying which it shows. Pure.
 */

export type Quote = { ok: true; hunk: string; truncated: boolean } | { ok: false; message: string };

/** A diff line with its number on each side it is on. */
type Numbered = { line: DiffLine; old?: number; new?: number; hunk: number };

const PREFIX: Record<DiffLine['kind'], string> = { context: ' ', add: '+', del: '-' };

function numbered(file: DiffFile): Numbered[] {
  const out: Numbered[] = [];
  file.hunks.forEach((h, hunk) => {
    let oldNo = h.oldStart;
    let newNo = h.newStart;
    for (const line of h.lines) {
      if (line.kind === 'context') out.push({ line, old: oldNo++, new: newNo++, hunk });
      else if (line.kind === 'add') out.push({ line, new: newNo++, hunk });
      else out.push({ line, old: oldNo++, hunk });
    }
  });
  return out;
}

/** `3-9 and 20-22`, `4`, `1-2, 7 and 9-12`: line numbers as ranges. */
export function rangesText(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  if (ranges.length <= 1) return ranges[0] ?? 'none';
  return `${ranges.slice(0, -1).join(', ')} and ${ranges.at(-1)}`;
}

/** What a file's diff has on one side, for a refusal: its changed lines and the lines it shows. */
function what(file: DiffFile, lines: readonly Numbered[], side: ReviewSide): string {
  const changed = lines
    .filter((l) => l.line.kind === (side === 'new' ? 'add' : 'del'))
    .map((l) => l[side] ?? 0);
  const shown = lines.flatMap((l) => (l[side] === undefined ? [] : [l[side]]));
  if (shown.length === 0)
    return `${file.path} has no lines on the ${side} side of this diff (it is ${file.status})`;
  const changes =
    changed.length === 0
      ? `no changed lines on the ${side} side`
      : `changed lines ${rangesText(changed)} (${side} side)`;
  return `${file.path} has ${changes}; the diff shows lines ${rangesText(shown)} there`;
}

export function quoteLines(file: DiffFile, side: ReviewSide, lines: ReviewLines): Quote {
  if (file.binary)
    return { ok: false, message: `${file.path} is binary: its diff has no lines to comment on` };
  const all = numbered(file);
  const at = (n: number) => all.findIndex((l) => l[side] === n);
  const first = at(lines.start);
  const last = at(lines.end);
  const span = first < 0 || last < 0 ? [] : all.slice(first, last + 1);
  const covered = new Set(span.flatMap((l) => (l[side] === undefined ? [] : [l[side]])));
  const missing = [];
  for (let n = lines.start; n <= lines.end && missing.length < 2; n++) if (!covered.has(n)) missing.push(n);
  if (missing.length > 0 || span.some((l) => l.hunk !== span[0]?.hunk)) {
    const one = lines.start === lines.end;
    const asked = one
      ? `line ${lines.start} (${side} side) is`
      : `lines ${lines.start}-${lines.end} (${side} side) are`;
    const cut = file.truncated ? ' (its diff was cut at the size limit)' : '';
    return {
      ok: false,
      message: `${asked} not in one hunk of the diff: ${what(file, all, side)}${cut}`,
    };
  }
  // One line of the diff around the commented ones, within their hunk.
  const before = all[first - 1]?.hunk === all[first]?.hunk ? first - 1 : first;
  const after = all[last + 1]?.hunk === all[last]?.hunk ? last + 1 : last;
  const text = all
    .slice(before, after + 1)
    .map((l) => `${PREFIX[l.line.kind]}${l.line.text}`)
    .join('\n');
  return cutQuote(text, REVIEW_HUNK_MAX_BYTES);
}

/** `text` within `maxBytes` of UTF-8: whole lines while they fit (at least part of the first). */
export function cutQuote(text: string, maxBytes: number): { ok: true; hunk: string; truncated: boolean } {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= maxBytes) return { ok: true, hunk: text, truncated: false };
  const kept: string[] = [];
  let bytes = 0;
  for (const line of text.split('\n')) {
    const size = encoder.encode(line).length + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.push(cutChars(line, maxBytes));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return { ok: true, hunk: kept.join('\n'), truncated: true };
}

function cutChars(line: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  let bytes = 0;
  let end = 0;
  for (const char of line) {
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return line.slice(0, end);
}
