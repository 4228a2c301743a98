import type { Command } from 'commander';
import { runDoctor } from '../doctor/doctor.ts';
import { formatTable } from '../doctor/format.ts';

type DoctorFlags = { execution?: string; port?: string; providerBaseUrl?: string; json?: boolean };

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check this machine for running plans: Node, git, Claude Code, credentials, provider, disk, port',
    )
    .option('--execution <dir>', 'execution directory to test for writing (default ./ribosome-runs)')
    .option('--port <n>', 'port to test (default: none given to run, a dynamic one)')
    .option(
      '--provider-base-url <url>',
      'provider to reach (default ANTHROPIC_BASE_URL, else the Anthropic API)',
    )
    .option('--json', 'print the results as JSON')
    .action(async (flags: DoctorFlags) => {
      const port = flags.port === undefined ? 0 : Number(flags.port);
      if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
        process.stderr.write(`ribosome: --port must be an integer from 0 to 65535, got "${flags.port}"\n`);
        process.exitCode = 2;
        return;
      }
      const result = await runDoctor({
        executionDir: flags.execution ?? 'ribosome-runs',
        host: '127.0.0.1',
        port,
        providerBaseUrl: flags.providerBaseUrl,
        env: process.env,
        nodeVersion: process.versions.node,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatTable(result)}\n`);
      process.exitCode = result.ok ? 0 : 1;
    });
}
