import { describe, expect, it } from 'vitest';
import { gitEnv } from '../../../src/execution/checkpoints/git-env.ts';

describe('gitEnv', () => {
  const env = gitEnv({
    gitDir: '/x/.ribosome/cp.git',
    workTree: '/x/agentRoot',
    path: '/usr/bin',
    tmpdir: '/tmp',
  });

  it('names the repository and work tree and cuts off config files', () => {
    expect(env).toMatchObject({
      GIT_DIR: '/x/.ribosome/cp.git',
      GIT_WORK_TREE: '/x/agentRoot',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CEILING_DIRECTORIES: '/x:/x/.ribosome',
      PATH: '/usr/bin',
      TMPDIR: '/tmp',
      GIT_AUTHOR_NAME: 'Ribosome',
      GIT_COMMITTER_NAME: 'Ribosome',
    });
  });

  it('passes every setting as a numbered pair', () => {
    const count = Number(env.GIT_CONFIG_COUNT);
    const settings = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]),
    );
    expect(settings).toMatchObject({
      'core.autocrlf': 'false',
      'core.hooksPath': '/dev/null',
      'core.excludesFile': '/dev/null',
      'core.attributesFile': '/dev/null',
      'core.untrackedCache': 'true',
      'gc.auto': '0',
    });
  });

  it('takes nothing else from the environment', () => {
    const allowed = /^(GIT_|PATH$|TMPDIR$|HOME$|LC_ALL$)/;
    expect(Object.keys(env).filter((k) => !allowed.test(k))).toEqual([]);
    const ours = new Set([
      'GIT_DIR',
      'GIT_WORK_TREE',
      'GIT_CEILING_DIRECTORIES',
      'GIT_CONFIG_NOSYSTEM',
      'GIT_CONFIG_GLOBAL',
      'GIT_TERMINAL_PROMPT',
      'GIT_NO_REPLACE_OBJECTS',
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'GIT_CONFIG_COUNT',
    ]);
    const stray = Object.keys(env).filter(
      (k) => k.startsWith('GIT_') && !ours.has(k) && !/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(k),
    );
    expect(stray).toEqual([]);
  });

  it('appends extra settings after its own', () => {
    const durable = gitEnv({
      gitDir: '/g',
      workTree: '/w',
      path: undefined,
      extraSettings: [['core.fsync', 'committed']],
    });
    const last = Number(durable.GIT_CONFIG_COUNT) - 1;
    expect([durable[`GIT_CONFIG_KEY_${last}`], durable[`GIT_CONFIG_VALUE_${last}`]]).toEqual([
      'core.fsync',
      'committed',
    ]);
    expect(durable.PATH).toBeUndefined();
  });
});
