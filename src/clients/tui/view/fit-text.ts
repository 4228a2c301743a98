import { sanitize } from '../../model/format.ts';

/**
 * Hard-wraps text to `width` columns, by characters. Wide characters may overflow a little; the
 * pane truncates every line, so the layout never breaks.
 */
export function wrapText(text: string, width: number, maxLines = Number.POSITIVE_INFINITY): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const raw of sanitize(text).split('\n')) {
    const chars = Array.from(raw.trimEnd());
    if (chars.length === 0) out.push('');
    for (let i = 0; i < chars.length; i += w) out.push(chars.slice(i, i + w).join(''));
    if (out.length >= maxLines) break;
  }
  if (out.length > maxLines) out.length = maxLines;
  return out;
}

/** Pads or cuts `text` to exactly `width` characters. */
export function padTo(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length > width)
    return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
  return text + ' '.repeat(width - chars.length);
}
