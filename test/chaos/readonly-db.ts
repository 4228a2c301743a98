/**
 * The database turns read-only under a running server: every write and sync of ribosome.db and its
 * WAL fails with EROFS (injected with strace; skipped with the reason where strace or ptrace is not
 * available), while a codon runs or just before one starts. The server keeps serving or exits with
 * its documented code after a fatal event; once writes work again, it (or the next server) goes on
 * with nothing lost.
 */
import { join } from 'node:path';
import { Execution } from './lib/execution.ts';
import type { Scenario } from './lib/scenario.ts';
import { hasStrace, type Injection, injectErrors, isRoot } from './lib/storage.ts';
import { storageFault } from './lib/storage-fault.ts';

export const readonlyDb: Scenario = {
  name: 'readonly-db',
  summary: 'writes to the database fail with EROFS (strace fault injection) mid-run, then work again',
  async run(ctx) {
    if (!hasStrace()) ctx.skip('no strace on this machine: it injects the EROFS errors');
    if (!isRoot()) ctx.skip('not root: attaching strace to the server needs ptrace rights');
    let round = 0;
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one', 'two', 'three'] });
      ctx.defer(() => x.dispose());
      const db = join(x.exec, '.ribosome/ribosome.db');
      let injection: Injection | undefined;
      await storageFault(
        ctx,
        x,
        {
          name: 'database read-only',
          cause: /EROFS|read-only|readonly|I\/O error|disk/i,
          inject: async () => {
            injection = await injectErrors(
              x.life!.pid,
              [db, `${db}-wal`, `${db}-journal`],
              'EROFS',
              ctx.defer,
            );
          },
          release: async () => injection?.stop(),
        },
        // The short version: a codon at work when the database stops taking writes.
        ctx.short || ctx.random() < 0.5 ? 'while a codon runs' : 'before a codon starts',
      );
      await x.dispose();
      round += 1;
    } while (!ctx.short && Date.now() < ctx.deadline);
    ctx.log(`${round} round(s)`);
  },
};
