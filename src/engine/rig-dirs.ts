import { z } from 'zod';
import { JsonListFile } from './json-list-file.ts';

export const RigDirsEntry = z.object({
  runId: z.string(),
  codonId: z.string(),
  /** The codon's rig-setup checkpoint: a rollback to before it removes these directories. */
  sha: z.string(),
  directories: z.array(z.string()),
});
export type RigDirsEntry = z.infer<typeof RigDirsEntry>;

/** `.ribosome/rig-dirs.json`: directories rig setup created, per codon, for rollback cleanup. */
export class RigDirsLog extends JsonListFile<RigDirsEntry> {
  constructor(file: string) {
    super(file, RigDirsEntry);
  }
}
