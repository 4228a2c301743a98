/**
 * A full disk: the execution directory on a small tmpfs (root only; skipped with the reason
 * otherwise), filled to the last byte while a codon runs or just before one starts. The server keeps
 * serving (the codon that could not be checkpointed says "no space") or exits with its documented
 * code after a fatal event; once space is freed, it (or the next server) goes on with nothing lost.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Execution, scratchDir } from './lib/execution.ts';
import type { Scenario } from './lib/scenario.ts';
import { cannotMount, fillUp, mountTmpfs } from './lib/storage.ts';
import { storageFault } from './lib/storage-fault.ts';

export const diskFull: Scenario = {
  name: 'disk-full',
  summary: 'the execution directory on a tmpfs filled up (a codon running or about to start), then freed',
  async run(ctx) {
    const why = cannotMount();
    if (why) ctx.skip(why);
    let round = 0;
    do {
      const mnt = join(scratchDir(ctx.defer, 'ribosome-chaos-disk-'), 'mnt');
      let unmount: () => void = () => {};
      try {
        unmount = mountTmpfs(mnt, 16, ctx.defer);
      } catch (error) {
        ctx.skip(`cannot mount a tmpfs: ${(error as Error).message.split('\n')[0]}`);
      }
      const x = await Execution.create(ctx.tally, {
        codons: ['one', 'two', 'three'],
        execDir: join(mnt, 'exec'),
      });
      ctx.defer(() => x.dispose());
      const filler = join(mnt, 'filler');
      await storageFault(
        ctx,
        x,
        {
          name: 'disk full',
          cause: /ENOSPC|no space|disk (is )?full/i,
          inject: async () => {
            fillUp(filler);
          },
          release: async () => rmSync(filler, { force: true }),
        },
        // The short version: the realistic case, a codon at work when the disk fills.
        ctx.short || ctx.random() < 0.5 ? 'while a codon runs' : 'before a codon starts',
      );
      await x.dispose();
      unmount();
      round += 1;
    } while (!ctx.short && Date.now() < ctx.deadline);
    ctx.log(`${round} round(s)`);
  },
};
