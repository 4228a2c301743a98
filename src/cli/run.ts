import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { readConfigFile, resolveServerSettings } from '../config/server-config.ts';
import { BareEngine, type PlanOutline } from '../engine/bare-engine.ts';
import { LockHeldError, startRuntime } from '../server/runtime.ts';

export const EXIT = { ok: 0, failure: 1, invalidInput: 2, locked: 3 } as const;

type RunFlags = {
  port?: string;
  host?: string;
  execution?: string;
  data?: string;
  config?: string;
  headless?: boolean;
  autostart: boolean;
  allowOrigin?: string[];
};

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a plan and serve the control protocol over WebSocket')
    .argument('<plan-file>', 'plan file (YAML or JSON)')
    .option('--port <n>', 'WebSocket port (0 or absent = dynamic)')
    .option('--host <h>', 'address to bind (default 127.0.0.1)')
    .option('--execution <dir>', 'execution directory (default ./ribosome-runs/<plan name>)')
    .option('--data <dir>', "user's data directory, read-only for the agent (default <execution>/data)")
    .option('--config <file>', 'config file (YAML or JSON)')
    .option('--headless', 'no terminal UI; print "listening ws://HOST:PORT" once ready')
    .option('--no-autostart', 'idle after each codon instead of starting the next one')
    .option('--allow-origin <origins...>', 'browser origins allowed to connect besides loopback')
    .action(async (planFile: string, flags: RunFlags) => {
      process.exitCode = await run(planFile, flags);
    });
}

function fail(message: string, code: number): number {
  process.stderr.write(`ribosome: ${message}\n`);
  return code;
}

async function run(planFile: string, flags: RunFlags): Promise<number> {
  const plan = readPlanOutline(planFile);
  if (!plan.ok) return fail(plan.message, EXIT.invalidInput);

  const file = flags.config ? readConfigFile(resolve(flags.config)) : { ok: true as const, value: {} };
  if (!file.ok) return fail(file.message, EXIT.invalidInput);
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    return fail(`--port must be an integer from 0 to 65535, got "${flags.port}"`, EXIT.invalidInput);
  }
  const settings = resolveServerSettings(file.value, {
    port,
    host: flags.host,
    allowOrigins: flags.allowOrigin,
    autostart: flags.autostart === false ? false : undefined,
  });
  if (!settings.ok) return fail(settings.message, EXIT.invalidInput);

  const executionDir = resolve(flags.execution ?? `ribosome-runs/${plan.value.name}`);
  const dataDir = resolve(flags.data ?? `${executionDir}/data`);
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  try {
    runtime = await startRuntime({
      executionDir,
      dataDir,
      settings: settings.value,
      createEngine: ({ bus }) => new BareEngine({ bus, plan: plan.value }),
    });
  } catch (error) {
    if (error instanceof LockHeldError) return fail(error.message, EXIT.locked);
    return fail((error as Error).message, EXIT.failure);
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void runtime.stop(`received ${signal}`));
  }
  process.stdout.write(`listening ${runtime.url}\n`);
  if (!flags.headless) {
    process.stderr.write(`Ribosome serving plan "${plan.value.name}"; logs in ${runtime.layout.logFile}\n`);
  }
  return runtime.stopped;
}

function readPlanOutline(file: string): { ok: true; value: PlanOutline } | { ok: false; message: string } {
  try {
    const text = readFileSync(file, 'utf8');
    const raw = (extname(file) === '.json' ? JSON.parse(text) : parseYaml(text)) as {
      name?: string;
      codons?: Array<{ id: string; name?: string }>;
    } | null;
    const name = raw?.name ?? basename(file, extname(file));
    const codons = (raw?.codons ?? []).map((c) => ({ id: c.id, name: c.name ?? c.id }));
    return { ok: true, value: { name, codons } };
  } catch (error) {
    return { ok: false, message: `cannot load plan ${file}: ${(error as Error).message}` };
  }
}
