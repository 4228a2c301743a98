import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliFound, commandFound, installHint, missingCliHint } from '../../src/agents/cli-binary.ts';
import { AGENT_CLIS, missingClis, missingPlanClis } from '../../src/agents/registry/agent-clis.ts';
import { tempDir } from '../helpers/server-process.ts';

const temp = tempDir();
afterAll(() => temp.remove());

/** A PATH directory holding an executable `tool`, a non-executable `plain` and a directory `dir`. */
const bin = join(temp.path, 'bin');
mkdirSync(join(bin, 'dir'), { recursive: true });
writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
chmodSync(join(bin, 'tool'), 0o755);
writeFileSync(join(bin, 'plain'), '');
chmodSync(join(bin, 'plain'), 0o644);
// Executable, but text without `#!` (retrial 18 L6: /etc/hostname, mode 755, "agent wrote this"): sh
// would run it line by line; not a program.
writeFileSync(join(bin, 'text'), 'agent wrote this');
chmodSync(join(bin, 'text'), 0o755);
const env = { PATH: `/nonexistent-dir:${bin}` };

describe('whether an agent CLI is found, as spawning it would find it', () => {
  it('a command: an executable file in a PATH directory; a path: that file, executable', () => {
    expect(commandFound('tool', env)).toBe(true);
    expect(commandFound('plain', env)).toBe(false);
    expect(commandFound('dir', env)).toBe(false);
    expect(commandFound('missing', env)).toBe(false);
    expect(commandFound('tool', { PATH: '' })).toBe(false);
    expect(commandFound(join(bin, 'tool'), { PATH: '' })).toBe(true);
    expect(commandFound(join(bin, 'plain'), env)).toBe(false);
    expect(commandFound('/nonexistent/tool', env)).toBe(false);
  });

  it('a program: a script with #! or a binary; an executable text file without #! is not one (retrial 18 L6)', () => {
    expect(commandFound('text', env)).toBe(false);
    expect(commandFound(join(bin, 'text'), env)).toBe(false);
    expect(commandFound(process.execPath, env)).toBe(true);
    expect(
      missingPlanClis([{ codonId: 'kr3', agent: 'codex' }], {
        ...env,
        RIBOSOME_CODEX_BIN: join(bin, 'text'),
      }),
    ).toContain(`Codex CLI (agent codex: codon kr3): RIBOSOME_CODEX_BIN=${join(bin, 'text')}: not found`);
  });

  it('a CLI is looked for where its agent looks: its variable first, else its command on PATH', () => {
    const codex = AGENT_CLIS.codex;
    expect(cliFound(codex, { ...env, RIBOSOME_CODEX_BIN: join(bin, 'tool') })).toEqual({
      found: true,
      binary: join(bin, 'tool'),
    });
    expect(cliFound(codex, { ...env, RIBOSOME_CODEX_BIN: '/nonexistent/codex' })).toEqual({
      found: false,
      binary: '/nonexistent/codex',
    });
  });

  it('missingClis: the CLIs of the agents given that are not found, in their order; builtin needs none', () => {
    const all = {
      ...env,
      RIBOSOME_CLAUDE_BIN: 'tool',
      RIBOSOME_CODEX_BIN: '/nonexistent/codex',
      RIBOSOME_GEMINI_BIN: 'tool',
      RIBOSOME_OPENCODE_BIN: 'no-opencode',
    };
    const missing = missingClis(['builtin', 'opencode', 'claude-code', 'codex', 'gemini'], all);
    expect(missing).toEqual([
      { agent: 'opencode', cli: AGENT_CLIS.opencode, binary: 'no-opencode', fromVar: true },
      { agent: 'codex', cli: AGENT_CLIS.codex, binary: '/nonexistent/codex', fromVar: true },
    ]);
    expect(missingClis(['builtin'], { PATH: '' })).toEqual([]);
  });
});

describe('a missing CLI, said once for `ribosome run`, `ribosome demo --mixed` and a codon that cannot start', () => {
  const all = {
    ...env,
    RIBOSOME_CLAUDE_BIN: 'tool',
    RIBOSOME_CODEX_BIN: '/x/codex',
    RIBOSOME_OPENCODE_BIN: 'tool',
  };

  it("missingPlanClis: each CLI the plan's codons need that is not found, with those codons; none: undefined", () => {
    const codons = [
      { codonId: 'first', agent: 'builtin' as const },
      { codonId: 'cx', agent: 'codex' as const },
      { codonId: 'gm', agent: 'gemini' as const },
      { codonId: 'loop', agent: 'codex' as const },
      { codonId: 'loop', agent: 'codex' as const },
      { codonId: 'cc', agent: 'claude-code' as const },
    ];
    expect(missingPlanClis(codons, all)?.split('\n')).toEqual([
      '2 agent CLIs of the plan are not found; nothing was run:',
      `  Codex CLI (agent codex: codons cx, loop): RIBOSOME_CODEX_BIN=/x/codex: not found; ${installHint(AGENT_CLIS.codex)}`,
      `  Gemini CLI (agent gemini: codon gm): gemini: not found on PATH; ${installHint(AGENT_CLIS.gemini)}`,
      '`ribosome doctor` checks every agent CLI.',
    ]);
    expect(missingPlanClis(codons.slice(0, 1), { PATH: '' })).toBeUndefined();
    expect(missingPlanClis([{ codonId: 'cc', agent: 'claude-code' }], all)).toBeUndefined();
  });

  it('missingCliHint names the variable and its path when the variable named the binary', () => {
    const codex = AGENT_CLIS.codex;
    expect(missingCliHint(codex, 'spawn /x/codex ENOENT', { RIBOSOME_CODEX_BIN: '/x/codex' })).toBe(
      `spawn /x/codex ENOENT; RIBOSOME_CODEX_BIN=/x/codex: not found; ${installHint(codex)}`,
    );
    expect(missingCliHint(codex, 'spawn codex ENOENT', {})).toBe(
      `spawn codex ENOENT; Codex CLI is not installed: ${installHint(codex)}`,
    );
    expect(missingCliHint(codex, 'spawn codex EACCES', {})).toBe('spawn codex EACCES');
  });
});
