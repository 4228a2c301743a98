import type { CheckpointDiffData, CheckpointInfo } from '../../core/protocol/index.ts';
import { displayLine, displayText } from '../model/display-text.ts';

/**
 * A codon's diff as unified diff text (`--- a/x`, `+++ b/x`, `@@ ... @@`, lines), headed by what it
 * compares: a model reads it as it reads git's. Binary files and cut hunks are said. Pure.
 */
export function diffText(
  codonId: string,
  range: { from: CheckpointInfo; to: CheckpointInfo },
  diff: CheckpointDiffData,
): string {
  const head = `codon ${codonId}: ${pointText(range.from)} -> ${pointText(range.to)}`;
  if (diff.files.length === 0) return `${displayLine(head)}\nno changes`;
  const out = [displayLine(head)];
  for (const file of diff.files) {
    const before = file.status === 'added' ? '/dev/null' : `a/${file.oldPath ?? file.path}`;
    const after = file.status === 'deleted' ? '/dev/null' : `b/${file.path}`;
    out.push(displayLine(`--- ${before}`), displayLine(`+++ ${after}`));
    if (file.binary) out.push('(binary file)');
    for (const hunk of file.hunks) {
      out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
      for (const line of hunk.lines) out.push(`${MARK[line.kind]}${displayText(line.text)}`);
    }
    if (file.truncated) out.push('(the rest of this file is cut: too large)');
  }
  if (diff.truncated) out.push(`(cut: the diff is over ${diff.limitBytes} bytes or too many files)`);
  return out.join('\n');
}

const MARK = { context: ' ', add: '+', del: '-' } as const;

function pointText(c: CheckpointInfo): string {
  return `${c.sha.slice(0, 12)} (${c.codonId || 'initial'} ${c.checkpointType})`;
}

/** The files of a diff as structuredContent: path, status and counts, without the hunks. Pure. */
export function diffSummary(diff: CheckpointDiffData) {
  return diff.files.map((f) => ({
    path: f.path,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    binary: f.binary,
  }));
}
