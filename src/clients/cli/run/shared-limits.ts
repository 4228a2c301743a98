import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { credentialKey } from '../../../execution/usage-limits/credential-key.ts';
import { SharedLimitsDir } from '../../../execution/usage-limits/shared-limits-dir.ts';
import { type Refusal, refuse } from './exit.ts';

/**
 * The directory of usage limits a run shares (docs/unattended.md#runs-on-one-credential-wait-together):
 * `--shared-limits DIR`, else the config file's `sharedLimits` (relative to the config file's folder);
 * made when missing. Refused, before anything starts, when it is not a directory this user can write
 * to: a run that could not tell the others of a limit would leave them to fail against it.
 */
export function sharedLimitsDir(given: {
  flag: string | undefined;
  file: string | undefined;
  configDir: string;
}): { ok: true; value: string | undefined } | Refusal {
  const { flag, file } = given;
  if (flag === undefined && file === undefined) return { ok: true, value: undefined };
  const what = flag !== undefined ? '--shared-limits' : "the config file's sharedLimits";
  const dir = flag !== undefined ? resolve(flag) : resolve(given.configDir, file ?? '');
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      return refuse(`${what} must be a directory, and ${dir} is a file (or lies under one)`);
    return refuse(`${what}: cannot make the directory ${dir}: ${(error as Error).message}`);
  }
  if (!statSync(dir).isDirectory()) return refuse(`${what} must be a directory, and ${dir} is a file`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return refuse(`${what}: cannot write to ${dir}: give a directory every run sharing it may write to`);
  }
  return { ok: true, value: dir };
}

/**
 * The store of a run's shared usage limits: one record per agent on the credential this server
 * gives it (`env`), at the provider it reaches. Records it cannot read or write are said by `warn`.
 */
export function sharedLimitsStore(options: {
  dir: string;
  provider: string;
  env: NodeJS.ProcessEnv;
  executionDir: string;
  warn: (text: string) => void;
}): SharedLimitsDir {
  return new SharedLimitsDir({
    dir: options.dir,
    keyOf: (agent) => credentialKey(agent, options.provider, options.env),
    by: options.executionDir,
    warn: options.warn,
  });
}
