/**
 * One MCP server as a client sees it, through the official SDK: started (stdio) or reached (streamable
 * HTTP), its tools listed, a tool called, closed. The built-in agent offers the tools to its model;
 * `ribosome doctor --plan` lists them. Failures are values with the server's name and, for a stdio
 * server, the last lines of its stderr.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CREDENTIAL_VARS } from '../../platform/credentials/credentials.ts';
import { lastWords } from '../../platform/processes/last-words.ts';
import type { McpLaunch } from './mcp-launch.ts';
import { StdioTransport } from './stdio-transport.ts';
import { type McpToolOutcome, mcpToolOutcome } from './tool-result.ts';

export type McpTool = { name: string; description?: string; inputSchema: Record<string, unknown> };

export type McpConnection = {
  readonly name: string;
  readonly tools: readonly McpTool[];
  /** The stdio server's pid; undefined for a remote one. */
  readonly pid: number | undefined;
  /** Calls `tool`; every failure (timeout, abort, a server gone) is an error outcome, never a throw. */
  call(
    tool: string,
    args: unknown,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<McpToolOutcome>;
  /** Ends the session; a stdio server's whole process tree is ended. Never rejects. */
  close(): Promise<void>;
};

export type ConnectOptions = {
  /**
   * What a stdio server's environment starts from (the agent's own, as Claude Code gives its servers),
   * before the entry's `env` and `secretEnv`; the LLM credential variables are left out of it.
   */
  baseEnv: NodeJS.ProcessEnv;
  /** How long the server may take to start and answer (initialize, tools/list). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** [name='ribosome'] The client's name the server is told. */
  clientName?: string;
};

export type Connected = { ok: true; connection: McpConnection } | { ok: false; message: string };

/** How much of a stdio server's stderr is kept, for a failure message. */
const STDERR_KEPT = 8192;

/** A stdio server's environment: `base` without LLM credentials, then the entry's env and secrets. Pure. */
export function stdioEnv(
  launch: Extract<McpLaunch, { kind: 'stdio' }>,
  base: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  const credentials: ReadonlySet<string> = new Set(CREDENTIAL_VARS);
  for (const [key, value] of Object.entries(base))
    if (value !== undefined && !credentials.has(key)) env[key] = value;
  return { ...env, ...launch.env, ...launch.secretEnv };
}

export async function connectMcp(launch: McpLaunch, options: ConnectOptions): Promise<Connected> {
  const fail = (why: string): Connected => ({ ok: false, message: `MCP server "${launch.name}" ${why}` });
  let stderr = '';
  const saidLast = () => {
    const words = lastWords(stderr);
    return words.length > 0 ? `; its stderr ended: ${words.join(' / ')}` : '';
  };
  let transport: StdioTransport | StreamableHTTPClientTransport;
  if (launch.kind === 'stdio') {
    if (!existsSync(launch.cwd))
      return fail(`could not start: its working directory ${launch.cwd} does not exist`);
    transport = new StdioTransport({
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: stdioEnv(launch, options.baseEnv),
      onStderr: (text) => {
        stderr = (stderr + text).slice(-STDERR_KEPT);
      },
    });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(launch.url), {
      requestInit: { headers: { ...launch.headers, ...launch.secretHeaders } },
    });
  }
  const stdio = transport instanceof StdioTransport ? transport : undefined;
  const client = new Client({ name: options.clientName ?? 'ribosome', version: '1' });
  // The client closes its transport, unless the server closed first (the SDK then lets go of it):
  // a stdio server's whole process tree is ended either way (StdioTransport).
  const close = async () => {
    await client.close().catch(() => {});
    await stdio?.close();
  };
  const request = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  let tools: McpTool[];
  try {
    await client.connect(transport, request);
    tools = await listTools(client, request);
    stdio?.answered();
  } catch (error) {
    await close();
    const what = launch.kind === 'stdio' ? 'could not start' : `could not be reached at ${launch.url}`;
    return fail(`${what}: ${connectProblem(error, launch, options.timeoutMs)}${saidLast()}`);
  }
  const pid = stdio?.pid;
  let closing: Promise<void> | undefined;
  return {
    ok: true,
    connection: {
      name: launch.name,
      tools,
      pid,
      async call(tool, args, { timeoutMs, signal }) {
        if (typeof args !== 'object' || args === null || Array.isArray(args))
          return { isError: true, text: `The input of ${tool} must be an object` };
        try {
          const result = await client.callTool(
            { name: tool, arguments: args as Record<string, unknown> },
            undefined,
            { timeout: timeoutMs, ...(signal ? { signal } : {}) },
          );
          return mcpToolOutcome(result);
        } catch (error) {
          if (signal?.aborted) return { isError: true, text: `The call of ${tool} was interrupted` };
          if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
            return {
              isError: true,
              text: `${tool} of MCP server "${launch.name}" did not answer within ${timeoutMs} ms (MCP_TOOL_TIMEOUT)`,
            };
          return {
            isError: true,
            text: `${tool} of MCP server "${launch.name}" failed: ${messageOf(error)}${saidLast()}`,
          };
        }
      },
      close: () => {
        closing ??= close();
        return closing;
      },
    },
  };
}

/** Every tool the server lists, page after page. */
async function listTools(
  client: Client,
  request: { timeout: number; signal?: AbortSignal },
): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
    for (const tool of page.tools)
      tools.push({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema,
      });
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

const messageOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  // fetch says "fetch failed"; what failed is in its cause (ECONNREFUSED, a name not found).
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
};

/** Why connecting failed, in words a user can act on. */
function connectProblem(error: unknown, launch: McpLaunch, timeoutMs: number): string {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  const spawning = launch.kind === 'stdio' && typeof syscall === 'string' && syscall.startsWith('spawn');
  if (spawning && code === 'ENOENT')
    return `${launch.command} was not found (not on PATH, nor a file): install it or give its full path`;
  if (spawning && code === 'EACCES') return `${launch.command} is not executable`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `it did not answer within ${timeoutMs} ms (MCP_TIMEOUT)`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return 'it exited before answering';
  return messageOf(error);
}
