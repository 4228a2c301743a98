import { displayText } from '../../model/display-text.ts';
import type { DiffFile } from './diff-layout.ts';
import { highlightLines, languageOf, type TokenLine } from './highlight.ts';

/** A diff line as the page shows it: made safe (displayText), a CR (a CRLF file's) as its stand-in so one line stays one. */
export function diffLineText(text: string): string {
  return displayText(text.replace(/\r/g, '␍'));
}

/**
 * Every line of a file's diff highlighted, by its index (diff-layout's `index`): each hunk's old
 * side (context and deleted lines) and new side (context and added lines) read as code of the file's
 * language, so a comment or a string that spans lines is coloured as one. Undefined when the file is
 * not code we read (or too long): it is shown plain.
 */
export function diffTokens(file: DiffFile): (TokenLine | undefined)[] | undefined {
  const language = languageOf(file.path);
  if (language === undefined || file.binary) return undefined;
  const out: (TokenLine | undefined)[] = [];
  let base = 0;
  for (const hunk of file.hunks) {
    const old: { at: number; text: string }[] = [];
    const now: { at: number; text: string }[] = [];
    hunk.lines.forEach((line, i) => {
      const text = diffLineText(line.text);
      if (line.kind !== 'add') old.push({ at: base + i, text });
      if (line.kind !== 'del') now.push({ at: base + i, text });
    });
    const oldLines = highlightLines(old.map((l) => l.text).join('\n'), language);
    const newLines = highlightLines(now.map((l) => l.text).join('\n'), language);
    if (oldLines === undefined || newLines === undefined) return undefined;
    now.forEach((l, k) => {
      out[l.at] = newLines[k];
    });
    old.forEach((l, k) => {
      out[l.at] ??= oldLines[k];
    });
    base += hunk.lines.length;
  }
  return out;
}
