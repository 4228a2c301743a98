import { readFileSync } from 'node:fs';
import { claudeBinary } from '../agents/claude-binary.ts';
import { DEFAULT_PROVIDER_BASE_URL } from '../config/proxy-config.ts';
import { type DoctorReport, report } from './check-result.ts';
import { checkCredentials } from './credentials.ts';
import { checkExecutionDir } from './execution-dir.ts';
import { checkNodeVersion } from './node-version.ts';
import { checkPort } from './port.ts';
import { checkProvider } from './provider.ts';
import { checkClaudeCode, checkGit } from './tools.ts';

export type DoctorOptions = {
  /** [executionDir='ribosome-runs'] Where runs go (run's default is ribosome-runs/<plan name>). */
  executionDir: string;
  /** [host='127.0.0.1'] */
  host: string;
  /** [port=0] run's default: a dynamic port. */
  port: number;
  /** --provider-base-url, else ANTHROPIC_BASE_URL, else the Anthropic API. */
  providerBaseUrl?: string;
  env: NodeJS.ProcessEnv;
  nodeVersion: string;
  providerTimeoutMs?: number;
};

const ENGINES_NODE: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  }
).engines.node;

export function providerBaseUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? (env.ANTHROPIC_BASE_URL || DEFAULT_PROVIDER_BASE_URL);
}

/** Runs every check (the slow ones at once) and returns them in a fixed order. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const [git, claude, provider, port] = await Promise.all([
    checkGit(options.env),
    checkClaudeCode(claudeBinary(options.env), options.env),
    checkProvider(providerBaseUrlOf(options.providerBaseUrl, options.env), options.providerTimeoutMs),
    checkPort(options.host, options.port),
  ]);
  return report([
    checkNodeVersion(options.nodeVersion, ENGINES_NODE),
    git,
    claude,
    checkCredentials(options.env),
    provider,
    checkExecutionDir(options.executionDir),
    port,
  ]);
}
