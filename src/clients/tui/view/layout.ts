import type { PaneId, ViewState } from './view-state.ts';

/** Where each pane goes for a terminal size: pure arithmetic, so 80x24 and larger are tested as numbers. */

export type PaneBox = { id: PaneId; width: number; height: number; border: boolean };
export type Layout = {
  width: number;
  headerRows: number;
  footerRows: number;
  mainHeight: number;
  rows: PaneBox[][];
};

export const HEADER_ROWS = 2;
export const FOOTER_ROWS = 2;
const TOP: readonly PaneId[] = ['codons', 'activity'];
const BOTTOM: readonly PaneId[] = ['sentinels', 'errors', 'checkpoints'];

/**
 * Ink clears the whole terminal on every frame as tall as the terminal, which flickers; the layout
 * therefore leaves the last row free.
 */
export function computeLayout(width: number, height: number, visible: ViewState['visible']): Layout {
  const w = Math.max(20, width);
  const mainHeight = Math.max(4, height - 1 - HEADER_ROWS - FOOTER_ROWS);
  const top = TOP.filter((p) => visible[p]);
  const bottom = BOTTOM.filter((p) => visible[p]);
  let topHeight = top.length > 0 ? mainHeight : 0;
  let bottomHeight = bottom.length > 0 ? mainHeight : 0;
  if (top.length > 0 && bottom.length > 0) {
    bottomHeight = Math.min(mainHeight - 4, Math.max(4, Math.round(mainHeight * 0.35)));
    topHeight = mainHeight - bottomHeight;
  }
  const rows: PaneBox[][] = [];
  if (top.length > 0) rows.push(row(top, w, topHeight, top.length === 2 ? [codonsWidth(w)] : []));
  if (bottom.length > 0) rows.push(weightedRow(bottom, w, bottomHeight));
  return { width: w, headerRows: HEADER_ROWS, footerRows: FOOTER_ROWS, mainHeight, rows };
}

/**
 * The codon list gets about a third of the width, and on a wide terminal every column the activity
 * (whose lines wrap) does not need beyond ACTIVITY_ENOUGH, so names are not cut: at least enough for
 * id, status, cost and time; at most what a long name needs.
 */
export const CODONS_MIN_WIDTH = 24;
export const CODONS_MAX_WIDTH = 100;
const ACTIVITY_ENOUGH = 100;
function codonsWidth(width: number): number {
  const share = Math.max(Math.round(width * 0.36), width - ACTIVITY_ENOUGH);
  return Math.min(CODONS_MAX_WIDTH, Math.max(CODONS_MIN_WIDTH, share));
}

/** Checkpoints (with rollback progress) get twice the share of their neighbours: their lines are long. */
function weightedRow(ids: readonly PaneId[], width: number, height: number): PaneBox[] {
  const weight = (id: PaneId) => (id === 'checkpoints' && ids.length > 1 ? 2 : 1);
  const total = ids.reduce((sum, id) => sum + weight(id), 0);
  return row(
    ids,
    width,
    height,
    ids.map((id) => Math.floor((width * weight(id)) / total)),
  );
}

function row(ids: readonly PaneId[], width: number, height: number, fixed: number[]): PaneBox[] {
  const even = Math.floor(width / ids.length);
  let left = width;
  return ids.map((id, i) => {
    const last = i === ids.length - 1;
    const w = last ? left : (fixed[i] ?? even);
    left -= w;
    return { id, width: w, height, border: i > 0 };
  });
}
