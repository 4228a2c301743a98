import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { isLoopbackHost } from '../../platform/http/loopback.ts';
import { accessToken } from '../../platform/http/token.ts';
import { createMcpServer, type McpContext, startMcpHttp } from '../mcp/index.ts';
import { consoleView } from './console-view.ts';

type McpFlags = {
  http?: boolean;
  port?: string;
  host?: string;
  token?: string;
  readonly?: boolean;
  allowOrigin?: string[];
};

/** `ribosome mcp`: Ribosome as an MCP server, over stdio (default) or streamable HTTP. */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      'Serve Ribosome as an MCP server (stdio, or --http): start plans, follow, steer, roll back and redo their runs',
    )
    .option('--http', 'serve MCP over streamable HTTP at http://HOST:PORT/mcp instead of stdio')
    .option('--port <n>', 'with --http: the port (0 or absent = dynamic)')
    .option('--host <h>', 'with --http: address to bind (default 127.0.0.1)')
    .option(
      '--token <token>',
      "the Ribosome servers' access token (env RIBOSOME_TOKEN), given to the runs it starts; with --http every request needs it too (generated when --host is not loopback)",
    )
    .option('--readonly', 'offer only the reading tools, and connect to servers as a readonly client')
    .option(
      '--allow-origin <origins...>',
      'with --http: browser origins allowed to call it (none by default)',
    )
    .action(async (flags: McpFlags) => {
      process.exitCode = await mcpCommand(flags);
    });
}

function fail(message: string): number {
  process.stderr.write(`ribosome mcp: ${message}\n`);
  return 2;
}

export async function mcpCommand(flags: McpFlags): Promise<number> {
  const http = flags.http === true;
  if (!http && (flags.port !== undefined || flags.host !== undefined || flags.allowOrigin !== undefined))
    return fail('--port, --host and --allow-origin go with --http');
  const host = flags.host ?? '127.0.0.1';
  const access = accessToken({
    flag: flags.token,
    env: process.env.RIBOSOME_TOKEN,
    loopback: isLoopbackHost(host),
  });
  if (!access.ok) return fail(access.message);
  const context: McpContext = {
    cwd: process.cwd(),
    // A generated token is this MCP server's alone, no Ribosome server's.
    token: access.generated ? undefined : access.token,
    readonly: flags.readonly === true,
    consoleView,
    env: process.env,
  };
  if (!http) {
    await createMcpServer(context).connect(new StdioServerTransport());
    return 0;
  }
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return fail(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  let served: Awaited<ReturnType<typeof startMcpHttp>>;
  try {
    served = await startMcpHttp({
      host,
      port,
      access: { token: access.token, allowOrigins: flags.allowOrigin ?? [] },
      makeServer: () => createMcpServer(context),
    });
  } catch (error) {
    process.stderr.write(`ribosome mcp: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return 1;
  }
  if (access.generated)
    process.stderr.write(
      `ribosome mcp: access token (clients send Authorization: Bearer <token>): ${access.token}\n`,
    );
  process.stdout.write(`mcp ${served.url}\n`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await served.stop();
  return 0;
}
