import type { CheckpointDiffData, DiffFile, DiffHunk } from '../../../core/protocol/index.ts';

/** The checkpoint.diff answer (a protocol extension: see docs/protocol.md#protocol-extensions) and its two layouts. */

export type { DiffFile, DiffHunk, DiffLine } from '../../../core/protocol/index.ts';
export type CheckpointDiff = CheckpointDiffData;

/**
 * `index`: the line's place among all the file's lines, hunk after hunk (its highlighted tokens' too);
 * `hunk`: which hunk it is in (a comment's lines are of one hunk).
 */
export type UnifiedRow =
  | { kind: 'hunk'; text: string }
  | {
      kind: 'context' | 'add' | 'del';
      oldNo?: number;
      newNo?: number;
      text: string;
      index: number;
      hunk: number;
    };

export const hunkHeader = (h: DiffHunk) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;

/** One row per line, numbered on the side(s) it exists on, a header row before each hunk. */
export function unifiedRows(file: DiffFile): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  let index = 0;
  for (const [h, hunk] of file.hunks.entries()) {
    rows.push({ kind: 'hunk', text: hunkHeader(hunk) });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    for (const line of hunk.lines) {
      const at = { text: line.text, index: index++, hunk: h };
      if (line.kind === 'context') rows.push({ kind: 'context', oldNo: oldNo++, newNo: newNo++, ...at });
      else if (line.kind === 'del') rows.push({ kind: 'del', oldNo: oldNo++, ...at });
      else rows.push({ kind: 'add', newNo: newNo++, ...at });
    }
  }
  return rows;
}

export type Side = { no: number; text: string; kind: 'context' | 'add' | 'del'; index: number };
export type SplitRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'pair'; left?: Side; right?: Side; hunk: number };

/**
 * Side by side: context on both sides; a run of deletions and the additions after it face each
 * other line by line, the longer run's rest facing blanks.
 */
export function splitRows(file: DiffFile): SplitRow[] {
  const rows: SplitRow[] = [];
  let index = 0;
  for (const [h, hunk] of file.hunks.entries()) {
    rows.push({ kind: 'hunk', text: hunkHeader(hunk) });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    let dels: Side[] = [];
    let adds: Side[] = [];
    const flush = () => {
      for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
        const left = dels[i];
        const right = adds[i];
        rows.push({ kind: 'pair', hunk: h, ...(left ? { left } : {}), ...(right ? { right } : {}) });
      }
      dels = [];
      adds = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === 'del') {
        if (adds.length > 0) flush();
        dels.push({ no: oldNo++, text: line.text, kind: 'del', index: index++ });
      } else if (line.kind === 'add')
        adds.push({ no: newNo++, text: line.text, kind: 'add', index: index++ });
      else {
        flush();
        rows.push({
          kind: 'pair',
          hunk: h,
          left: { no: oldNo++, text: line.text, kind: 'context', index },
          right: { no: newNo++, text: line.text, kind: 'context', index: index++ },
        });
      }
    }
    flush();
  }
  return rows;
}
