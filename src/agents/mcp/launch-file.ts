import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { McpLaunch } from './mcp-launch.ts';

/**
 * The file that gives `ribosome agent` its MCP servers (`--mcp-servers FILE`): the codon's launches,
 * secrets included, so they never appear on a command line or in the agent's environment. Written
 * by the built-in agent's adapter in its state directory, readable by the owner alone, and removed
 * when the run ends.
 */

export const McpLaunchFile = z.strictObject({ servers: z.array(McpLaunch) });
export type McpLaunchFile = z.infer<typeof McpLaunchFile>;

/** Writes `servers` to `path` for the owner alone (0600). Throws what the file system said. */
export function writeLaunchFile(path: string, servers: readonly McpLaunch[]): void {
  const file: McpLaunchFile = { servers: [...servers] };
  writeFileSync(path, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  // The mode is only applied to a new file: one left over keeps its own.
  chmodSync(path, 0o600);
}

/** The launches of `path`, or why it cannot be read, in words. */
export function readLaunchFile(
  path: string,
): { ok: true; servers: McpLaunch[] } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read the MCP servers file ${path}: ${(error as Error).message}` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: `the MCP servers file ${path} is not JSON` };
  }
  const parsed = McpLaunchFile.safeParse(data);
  if (!parsed.success)
    return {
      ok: false,
      message: `the MCP servers file ${path} is not one: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    };
  return { ok: true, servers: parsed.data.servers };
}
