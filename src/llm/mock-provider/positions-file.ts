/**
 * Where the scripted provider's tracks are, kept in the execution (docs/operations.md#offline-runs),
 * so a server started again on it goes on where the tracks were instead of replaying answers already
 * given. Tied to the script's text: a script changed since starts from its beginning.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { TrackLimits, TrackPositions } from './script-player.ts';

const Saved = z.object({
  scriptSha256: z.string(),
  positions: z.record(z.string(), z.number().int().min(0)),
  /** The resets of the usage limits tracks were held at (a restarted server's provider holds them too). */
  limits: z.record(z.string(), z.number().int().min(0)).optional(),
});

export type PositionsFile = {
  /** The saved positions for this script; empty when none are saved, or saved for another script. */
  load(): TrackPositions;
  /** The saved usage-limit resets for this script; empty likewise. */
  loadLimits(): TrackLimits;
  /** Replaces the saved positions and limits (a whole file written, then renamed into place). */
  save(positions: TrackPositions, limits?: TrackLimits): void;
};

export function positionsFile(path: string, scriptText: string): PositionsFile {
  const scriptSha256 = createHash('sha256').update(scriptText).digest('hex');
  const read = (): z.infer<typeof Saved> | undefined => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const saved = Saved.safeParse(JSON.parse(text));
      return saved.success && saved.data.scriptSha256 === scriptSha256 ? saved.data : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    load: () => read()?.positions ?? {},
    loadLimits: () => read()?.limits ?? {},
    save(positions, limits = {}) {
      const next = `${path}.next`;
      writeFileSync(next, `${JSON.stringify({ scriptSha256, positions, limits })}\n`);
      renameSync(next, path);
    },
  };
}
