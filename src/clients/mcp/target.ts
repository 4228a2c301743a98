import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ClientMode, RibosomeClient } from '../../core/client/index.ts';
import { executionLayout } from '../../execution/layout/layout.ts';
import { findExecution, liveServerUrl } from '../runs/index.ts';
import type { McpContext } from './context.ts';
import { ToolError } from './tool-result.ts';

/** An execution a tool works on: its directory, and its live server's address when one holds it. */
export type Target = { dir: string; url: string | undefined };

/** What a tool's `execution` argument is: a server's address, a directory, or left out. Pure. */
export function targetKind(given: string | undefined): 'url' | 'dir' | 'default' {
  if (given === undefined || given.trim() === '') return 'default';
  return /^wss?:\/\//i.test(given) ? 'url' : 'dir';
}

/**
 * The execution `given` names: a directory (relative to the MCP server's), a server's ws:// address
 * (its directory is what its server.ready says), or, left out, the only execution under
 * ./ribosome-runs, as `ribosome runs` finds it.
 */
export async function findTarget(given: string | undefined, context: McpContext): Promise<Target> {
  const kind = targetKind(given);
  if (kind === 'url' && given !== undefined) {
    const dir = await withClient(
      given,
      'readonly',
      context,
      async (client) => client.serverInfo.executionPath,
    );
    return { dir, url: given };
  }
  const found = findExecution(kind === 'dir' ? given : undefined, context.cwd);
  if (!found.ok) throw new ToolError(found.message.replace('--execution DIR', 'the execution argument'));
  const dir = resolve(context.cwd, found.dir);
  if (!existsSync(executionLayout(dir).database))
    throw new ToolError(
      `${dir} is not an execution directory (it has no .ribosome/ribosome.db): list_executions shows those there are`,
    );
  return { dir, url: liveServerUrl(dir) };
}

/** The live server's address, or a refusal saying none runs and how to start one. */
export function liveUrl(target: Target): string {
  if (target.url !== undefined) return target.url;
  throw new ToolError(
    `no Ribosome server is running on ${target.dir}: start one with start_plan {plan: PLAN_FILE, execution: "${target.dir}"} (it resumes the execution), or \`ribosome run PLAN_FILE --execution ${target.dir}\``,
  );
}

/**
 * Connects to a Ribosome server as `mode` (always readonly in a read-only MCP server), runs `use`,
 * and closes the connection whatever happens.
 */
export async function withClient<T>(
  url: string,
  mode: ClientMode,
  context: McpContext,
  use: (client: RibosomeClient) => Promise<T>,
  options: { sendPreviousEvents?: boolean } = {},
): Promise<T> {
  let client: RibosomeClient;
  try {
    client = await RibosomeClient.connect(url, {
      mode: context.readonly ? 'readonly' : mode,
      keepEvents: 0,
      sendPreviousEvents: options.sendPreviousEvents === true,
      connectTimeoutMs: 10_000,
      ...(context.token ? { token: context.token } : {}),
    });
  } catch (error) {
    const message = (error as Error).message;
    if (/HTTP 40[13]\b/.test(message))
      throw new ToolError(
        `the Ribosome server at ${url} refused the connection (${message}): start ribosome mcp with its access token (--token or RIBOSOME_TOKEN)`,
      );
    throw new ToolError(`cannot connect to the Ribosome server at ${url}: ${message}`);
  }
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
