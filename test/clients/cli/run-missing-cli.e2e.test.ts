import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeTurns } from '../../helpers/plans.ts';
import { killAll, runCli, tempDir } from '../../helpers/server-process.ts';

/** `ribosome run` looks for every agent CLI its plan needs before any codon runs (and spends). */

const temps: Array<{ remove(): void }> = [];
afterEach(() => killAll());
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

describe('run: a missing agent CLI', () => {
  it('exit 2 before anything runs, naming each CLI, its codons and the variable that named it', async () => {
    const t = tempDir();
    temps.push(t);
    // The plan's agent is builtin; `cx` and `gm` name their own.
    writeFileSync(
      join(t.path, 'plan.yaml'),
      'name: missing\ncodons:\n  - { id: first, prompt: Do first. }\n  - { id: cx, agent: codex, prompt: Do cx. }\n  - { id: gm, agent: gemini, prompt: Do gm. }\n',
    );
    writeFileSync(join(t.path, 'script.yaml'), `turns:\n${writeTurns('first.txt', 'first')}`);
    const exec = join(t.path, 'exec');
    const proc = runCli(
      [
        'run',
        'plan.yaml',
        '--headless',
        '--exit-when-done',
        '--scripted-provider',
        'script.yaml',
        '--execution',
        exec,
      ],
      {
        cwd: t.path,
        env: { RIBOSOME_CODEX_BIN: '/nonexistent/codex', RIBOSOME_GEMINI_BIN: 'no-such-gemini' },
      },
    );
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    const { code } = await proc.exited;
    clearTimeout(timer);
    expect(code).toBe(2);
    const stderr = proc.stderr();
    expect(stderr).toContain('ribosome: 2 agent CLIs of the plan are not found; nothing was run:');
    expect(stderr).toContain(
      'Codex CLI (agent codex: codon cx): RIBOSOME_CODEX_BIN=/nonexistent/codex: not found; install it beside Ribosome',
    );
    expect(stderr).toContain(
      'Gemini CLI (agent gemini: codon gm): RIBOSOME_GEMINI_BIN=no-such-gemini: not found; install it beside Ribosome',
    );
    expect(stderr).not.toContain('not installed');
    // Nothing started: no listening line, no journal, the first codon's file not written.
    expect(proc.stdout()).toBe('');
    expect(existsSync(join(exec, '.ribosome'))).toBe(false);
    expect(existsSync(join(exec, 'agentRoot', 'first.txt'))).toBe(false);
  });
});
