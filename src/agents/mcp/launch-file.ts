import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { McpLaunch } from './mcp-launch.ts';

/**
 * The file that gives `ribosome agent` its MCP servers (`--mcp-servers FILE`): the codon's launches,
 * secrets included, so they never appear on a command line or in the agent's environment. Written
 * by the built-in agent's adapter in its state directory, readable by the owner alone, and removed
 * when the run ends.
 */

const Strings = z.record(z.string(), z.string());

export const McpLaunchSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('stdio'),
    name: z.string().min(1),
    command: z.string().min(1),
    args: z.array(z.string()),
    env: Strings,
    secretEnv: Strings,
    cwd: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('http'),
    name: z.string().min(1),
    url: z.string().min(1),
    headers: Strings,
    secretHeaders: Strings,
  }),
]);

// The schema and McpLaunch (mcp-launch.ts) must describe the same thing: either drifting fails tsc.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.infer<typeof McpLaunchSchema>, McpLaunch> = true;
void sameShape;

export const McpLaunchFile = z.strictObject({ servers: z.array(McpLaunchSchema) });
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
