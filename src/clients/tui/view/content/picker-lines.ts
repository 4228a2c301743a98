import type { RollbackChoice } from '../../../model/store/selectors.ts';
import type { Line } from '../lines.ts';

/** The rollback picker: the targets, the chosen one marked. */
export function pickerLines(targets: readonly RollbackChoice[], cursor: number): Line[] {
  return targets.map((t, i) => {
    const selected = i === cursor;
    return {
      text: `${selected ? '›' : ' '} ${t.label}`,
      ...(selected ? { highlight: true, bold: true } : {}),
    };
  });
}
