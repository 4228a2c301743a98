import { anchor } from '../../scripts/reference/markdown.ts';

/**
 * Just enough Markdown for checking the docs' links and anchors: headings and links outside code,
 * and the anchors GitHub gives headings.
 */

/** The text outside fenced code blocks and code spans, line by line (code becomes blanks). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
  });
}

/** Every anchor of a page's headings (outside code), in order. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = anchor(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a page's Markdown links (`[text](target)`), outside code, with their line. */
export function linksOf(markdown: string): Array<{ target: string; line: number }> {
  return prose(markdown).flatMap((text, i) =>
    [...text.matchAll(/\]\(([^()\s]+)\)/g)].map((m) => ({ target: m[1]!, line: i + 1 })),
  );
}
