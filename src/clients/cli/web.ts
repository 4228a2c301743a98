import type { Command } from 'commander';
import { accessToken, generateToken, parseServerUrl, startWebServer } from '../../host/web-server/index.ts';
import { askTicket } from '../../host/web-server/ticket-source.ts';
import { isLoopbackHost } from '../../platform/http/loopback.ts';
import { BatchDashboardError, startBatchDashboard } from '../batch/fleet/batch-dashboard.ts';

type WebFlags = { port?: string; host?: string; token?: string; readonly?: boolean; batch?: string };

/** `ribosome web <ws-url>...` or `ribosome web --batch DIR`: the dashboard alone, for servers already running. */
export function registerWeb(program: Command): void {
  program
    .command('web')
    .description('Serve the web dashboard for running Ribosome servers, or for the jobs of a batch')
    .argument('[ws-url...]', 'the servers to show, as `ribosome run` printed them: ws://HOST:PORT')
    .option(
      '--batch <dir>',
      'a batch directory: list its jobs (from its summary.json) and open any that runs, found by its runtime lock',
    )
    .option('--port <n>', "the dashboard's HTTP port (0 or absent = dynamic)")
    .option('--host <h>', 'address to bind (default 127.0.0.1)')
    .option(
      '--token <token>',
      'access token the dashboard needs (env RIBOSOME_TOKEN); generated when --host is not loopback',
    )
    .option(
      '--readonly',
      'the page may only watch: its servers grant it readonly whatever it asks, and its address never carries the token',
    )
    .action(async (urls: string[], flags: WebFlags) => {
      process.exitCode = await web(urls, flags);
    });
}

function fail(message: string): number {
  process.stderr.write(`ribosome web: ${message}\n`);
  return 2;
}

/** The port flag, or why it is not one. */
function portOf(flags: WebFlags): number | string {
  const port = flags.port === undefined ? 0 : Number(flags.port);
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? port
    : `--port must be an integer from 0 to 65535, got "${flags.port}"`;
}

/** Serves until SIGINT or SIGTERM, then stops: exit 0. */
async function serveUntilSignal(server: { stop(): Promise<void> }): Promise<number> {
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await server.stop();
  return 0;
}

async function web(urls: string[], flags: WebFlags): Promise<number> {
  if (flags.batch !== undefined) {
    if (urls.length > 0) return fail("give the servers' addresses or --batch DIR, not both");
    return webBatch(flags.batch, flags);
  }
  if (urls.length === 0) return fail("give the servers' addresses (ws://HOST:PORT) or --batch DIR");
  const servers: { url: string; port: number }[] = [];
  for (const text of urls) {
    const parsed = parseServerUrl(text);
    if (!parsed.ok) return fail(parsed.message);
    servers.push(parsed);
  }
  const port = portOf(flags);
  if (typeof port === 'string') return fail(port);
  const host = flags.host ?? '127.0.0.1';
  const access = accessToken({
    flag: flags.token,
    env: process.env.RIBOSOME_TOKEN,
    loopback: isLoopbackHost(host),
  });
  if (!access.ok) return fail(access.message);
  const readonly = flags.readonly === true;
  // The servers' token (a generated one is no server's). A readonly page gets a key of its own
  // instead, so whoever has its address can watch and nothing else (docs/dashboard.md#access-token).
  const serverToken = access.generated ? undefined : access.token;
  const pageKey = readonly && access.token !== undefined ? generateToken() : access.token;
  let server: Awaited<ReturnType<typeof startWebServer>>;
  try {
    server = await startWebServer({
      host,
      port,
      ...(process.env.RIBOSOME_WEB_ROOT ? { root: process.env.RIBOSOME_WEB_ROOT } : {}),
      readonly,
      token: pageKey,
      ticket: (index, origin) =>
        askTicket(servers[index]?.url ?? '', {
          origin,
          mode: readonly ? 'readonly' : 'readandwrite',
          token: serverToken,
        }),
      servers: () => servers.map((s) => s.url),
    });
  } catch (error) {
    process.stderr.write(`ribosome web: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return 1;
  }
  const query = pageKey === undefined ? '' : `?token=${encodeURIComponent(pageKey)}`;
  process.stdout.write(`dashboard ${server.url}${query}\n`);
  return serveUntilSignal(server);
}

/** `ribosome web --batch DIR`: the fleet of a batch directory. */
async function webBatch(dir: string, flags: WebFlags): Promise<number> {
  const port = portOf(flags);
  if (typeof port === 'string') return fail(port);
  const host = flags.host ?? '127.0.0.1';
  const access = accessToken({
    flag: flags.token,
    env: process.env.RIBOSOME_TOKEN,
    loopback: isLoopbackHost(host),
  });
  if (!access.ok) return fail(access.message);
  let dashboard: Awaited<ReturnType<typeof startBatchDashboard>>;
  try {
    dashboard = await startBatchDashboard({
      dir,
      host,
      port,
      // A generated one is made again there: it is the page's key, no server's.
      token: access.generated ? undefined : access.token,
      readonly: flags.readonly === true,
      root: process.env.RIBOSOME_WEB_ROOT || undefined,
    });
  } catch (error) {
    if (!(error instanceof BatchDashboardError)) throw error;
    if (error.code === 'cannot_listen') {
      process.stderr.write(`ribosome web: ${error.message}\n`);
      return 1;
    }
    return fail(error.message);
  }
  process.stdout.write(`dashboard ${dashboard.url}\n`);
  return serveUntilSignal(dashboard);
}
