import type { DiffFile, DiffHunk } from '../../core/protocol/checkpoint-diff.ts';

export type ParsedDiff = { files: DiffFile[]; truncated: boolean };

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses `git diff-tree -p -M` output (with core.quotePath=false) into files and hunks. `cut` says the
 * text was cut at a size limit: its last line may be partial (dropped) and the file it ends in is marked
 * truncated. At most `maxFiles` files and `maxLines` hunk lines are kept (each line costs some 30 bytes
 * of JSON besides its text); more make the result truncated, and the file cut too. Pure.
 */
export function parseUnifiedDiff(
  text: string,
  options: { maxFiles: number; maxLines?: number; cut: boolean },
): ParsedDiff {
  const maxLines = options.maxLines ?? Number.POSITIVE_INFINITY;
  let kept = 0;
  const lines = text.split('\n');
  // A final newline leaves an empty last item; a cut leaves a partial line: neither is content.
  if (options.cut || lines.at(-1) === '') lines.pop();
  const files: DiffFile[] = [];
  let truncated = options.cut;
  let file: DiffFile | undefined;
  let hunk: DiffHunk | undefined;
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      if (files.length === options.maxFiles) {
        truncated = true;
        file = undefined;
        break;
      }
      file = {
        path: headerPath(line.slice('diff --git '.length)),
        status: 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        hunks: [],
      };
      hunk = undefined;
      files.push(file);
      continue;
    }
    if (!file) continue;
    if (hunk) {
      const kind = line[0];
      if (kind === ' ' || kind === '+' || kind === '-') {
        if (kept === maxLines) {
          file.truncated = true;
          truncated = true;
          break;
        }
        kept += 1;
        const text = line.slice(1);
        if (kind === '+') {
          file.additions += 1;
          hunk.lines.push({ kind: 'add', text });
        } else if (kind === '-') {
          file.deletions += 1;
          hunk.lines.push({ kind: 'del', text });
        } else hunk.lines.push({ kind: 'context', text });
        continue;
      }
      // "\ No newline at end of file" belongs to the line before it: nothing to show apart.
      if (kind === '\\') continue;
    }
    const range = HUNK.exec(line);
    if (range) {
      hunk = {
        oldStart: Number(range[1]),
        oldLines: range[2] === undefined ? 1 : Number(range[2]),
        newStart: Number(range[3]),
        newLines: range[4] === undefined ? 1 : Number(range[4]),
        lines: [],
      };
      file.hunks.push(hunk);
    } else if (line.startsWith('new file mode ')) file.status = 'added';
    else if (line.startsWith('deleted file mode ')) file.status = 'deleted';
    else if (line.startsWith('rename from ')) {
      file.status = 'renamed';
      file.oldPath = unquote(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) file.path = unquote(line.slice('rename to '.length));
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
  }
  if (options.cut && file) file.truncated = true;
  return { files, truncated };
}

/**
 * The path of a `diff --git a/P b/P` header. Without a rename both sides are the same path, so the
 * header splits in its middle even when the path has spaces; a rename's paths come from its
 * `rename from` / `rename to` lines, which replace this.
 */
function headerPath(header: string): string {
  if (header.startsWith('"')) {
    const end = closingQuote(header);
    return unquote(header.slice(0, end + 1)).replace(/^a\//, '');
  }
  const half = (header.length - 1) / 2;
  if (Number.isInteger(half) && header.slice(0, half).slice(2) === header.slice(half + 1).slice(2)) {
    return header.slice(2, half);
  }
  // Asymmetric (a rename): the `rename` lines follow with the exact paths.
  return header.slice(2, header.indexOf(' b/') >= 0 ? header.indexOf(' b/') : undefined);
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** git's C-style quoting of a path ("a\"b", octal escapes for bytes), undone; unquoted text as is. */
export function unquote(text: string): string {
  if (!(text.startsWith('"') && text.endsWith('"') && text.length >= 2)) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
