import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfigFile } from '../../plan/config/config-file.ts';
import { formatProblems, loadPlan } from '../../plan/index.ts';
import { runDoctor } from '../doctor/doctor.ts';
import { formatTable } from '../doctor/format.ts';
import { planMcpServers } from '../doctor/mcp-servers.ts';

type DoctorFlags = {
  execution?: string;
  port?: string;
  providerBaseUrl?: string;
  config?: string;
  scriptedProvider?: string;
  versionTimeout?: string;
  plan?: string;
  json?: boolean;
};

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check this machine for running plans: Node, git, agent CLIs (Claude Code, Codex, Gemini CLI, opencode), credentials, provider, disk, port',
    )
    .option('--execution <dir>', 'execution directory to test for writing (default ./ribosome-runs)')
    .option('--port <n>', 'port to test (default: none given to run, a dynamic one)')
    .option(
      '--provider-base-url <url>',
      'provider to reach (default as for run: SERVICE_RUNTIME_PROVIDER_BASE_URL, ANTHROPIC_BASE_URL, the config file, the Anthropic API)',
    )
    .option('--config <file>', 'the config file run will use (its providerBaseUrl is checked)')
    .option(
      '--scripted-provider <file>',
      'check an offline setup, as run --scripted-provider runs it: the script instead of credentials and provider',
    )
    .option(
      '--version-timeout <seconds>',
      "how long git's and each agent CLI's --version may take (default 10; a loaded machine starts some slowly)",
    )
    .option(
      '--plan <file>',
      "also start each MCP server of the plan's codons once (or reach a remote one) and list its tools (env MCP_TIMEOUT in ms bounds each, default 30 s)",
    )
    .option('--json', 'print the results as JSON')
    .action(async (flags: DoctorFlags) => {
      const port = flags.port === undefined ? 0 : Number(flags.port);
      if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
        process.stderr.write(`ribosome: --port must be an integer from 0 to 65535, got "${flags.port}"\n`);
        process.exitCode = 2;
        return;
      }
      const versionTimeout = flags.versionTimeout === undefined ? undefined : Number(flags.versionTimeout);
      if (versionTimeout !== undefined && !(Number.isFinite(versionTimeout) && versionTimeout > 0)) {
        process.stderr.write(
          `ribosome: --version-timeout must be a number of seconds above 0, got "${flags.versionTimeout}"\n`,
        );
        process.exitCode = 2;
        return;
      }
      const file = flags.config ? await loadConfigFile(flags.config) : undefined;
      if (file && !file.ok) {
        process.stderr.write(`${formatProblems(file.problems, flags.config ?? '')}\n`);
        process.exitCode = 2;
        return;
      }
      if (file && file.warnings.length > 0)
        process.stderr.write(`${formatProblems(file.warnings, flags.config ?? '')}\n`);
      // Its warnings are `validate`'s to say; an unset secret is a failed row below.
      const plan = flags.plan ? await loadPlan(flags.plan) : undefined;
      if (plan && !plan.ok) {
        process.stderr.write(`${formatProblems(plan.problems, flags.plan ?? '')}\n`);
        process.exitCode = 2;
        return;
      }
      const result = await runDoctor({
        executionDir: flags.execution ?? 'ribosome-runs',
        host: '127.0.0.1',
        port,
        providerBaseUrl: flags.providerBaseUrl,
        ...(flags.scriptedProvider ? { scriptedProvider: resolve(flags.scriptedProvider) } : {}),
        ...(file ? { config: file.value } : {}),
        ...(plan ? { plan: { dir: plan.plan.dir, mcpServers: planMcpServers(plan.plan) } } : {}),
        env: process.env,
        nodeVersion: process.versions.node,
        ...(versionTimeout === undefined ? {} : { versionTimeoutMs: versionTimeout * 1000 }),
      });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatTable(result)}\n`);
      process.exitCode = result.ok ? 0 : 1;
    });
}
