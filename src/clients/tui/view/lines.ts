import type { Tone } from '../../model/tone.ts';

/** One terminal line of a pane. Panes are lists of these, so their heights are known before Ink draws. */
export type Line = {
  text: string;
  tone?: Tone;
  bold?: boolean;
  dim?: boolean;
  /** The running codon, the selected entry: drawn inverse (and marked in the text for NO_COLOR). */
  highlight?: boolean;
};

/** A pane's lines: an array, or a list that makes the lines asked for (the activity pane's). */
export type LineList = { readonly length: number; slice(start?: number, end?: number): Line[] };

export type Window = { lines: Line[]; above: number; below: number };

/**
 * The lines a pane of `height` shows. `bottom` panes show the newest (last) lines and scroll back;
 * `top` panes show the first and scroll down. `keep` is a line to keep in view (a selection).
 */
export function windowLines(
  lines: LineList,
  height: number,
  anchor: 'top' | 'bottom',
  scroll: number,
  keep?: number,
): Window {
  const h = Math.max(0, height);
  const max = Math.max(0, lines.length - h);
  const offset = Math.min(max, Math.max(0, scroll));
  let start = anchor === 'bottom' ? max - offset : offset;
  if (keep !== undefined && keep >= 0 && keep < lines.length) {
    if (keep < start) start = keep;
    else if (keep >= start + h) start = keep - h + 1;
  }
  start = Math.min(max, Math.max(0, start));
  const end = Math.min(lines.length, start + h);
  return { lines: lines.slice(start, end), above: start, below: lines.length - end };
}

/**
 * A long line as several, broken at spaces where one is near the edge, continuation lines indented,
 * at most `maxLines` (the last one ends with an ellipsis when text is left over).
 */
export function wrapLine(line: Line, width: number, maxLines = 4, indent = '  '): Line[] {
  const w = Math.max(8, width);
  let rest = Array.from(line.text);
  if (rest.length <= w) return [line];
  const out: Line[] = [];
  let prefix = '';
  while (rest.length > 0 && out.length < maxLines) {
    const room = w - prefix.length;
    let take = Math.min(room, rest.length);
    if (take < rest.length) {
      const space = rest.lastIndexOf(' ', take);
      if (space > room / 2) take = space;
    }
    out.push({ ...line, text: prefix + rest.slice(0, take).join('').trimEnd() });
    rest = rest.slice(take);
    while (rest[0] === ' ') rest = rest.slice(1);
    prefix = indent;
  }
  const last = out.at(-1);
  if (rest.length > 0 && last) {
    const chars = Array.from(last.text);
    out[out.length - 1] = { ...last, text: `${chars.slice(0, Math.min(chars.length, w - 1)).join('')}…` };
  }
  return out;
}
