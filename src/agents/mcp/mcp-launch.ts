import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { envFromPairs, type McpServer } from '../../plan/mcp-schema.ts';

const Strings = z.record(z.string(), z.string());

/**
 * An MCP server as an agent is given it for one run: the plan's entry with its secrets read from the
 * server's environment. Literal values (`env`, `headers`) came from the plan; `secretEnv` and
 * `secretHeaders` hold values that must reach the MCP server and nothing else (not the journal, a
 * cassette, a log, nor the agent's own environment when the agent can keep them out of it).
 */
export const McpLaunch = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('stdio'),
    name: z.string().min(1),
    command: z.string().min(1),
    args: z.array(z.string()),
    env: Strings,
    secretEnv: Strings,
    /** Absolute. */
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
export type McpLaunch = z.infer<typeof McpLaunch>;

export type McpLaunches =
  | { ok: true; servers: McpLaunch[]; secrets: Array<{ name: string; value: string }> }
  | { ok: false; message: string };

/**
 * The launches of a codon's servers (RuntimeCodon.mcpServers), `cwd` resolved against the agent root
 * and every secret read from `env`. A secret variable that is unset fails them all, naming it. Pure.
 */
export function mcpLaunches(
  servers: Readonly<Record<string, McpServer>>,
  agentRoot: string,
  env: NodeJS.ProcessEnv,
): McpLaunches {
  const launches: McpLaunch[] = [];
  const secrets: Array<{ name: string; value: string }> = [];
  const missing: string[] = [];
  const read = (variable: string): string => {
    const value = env[variable];
    if (value === undefined || value === '') {
      missing.push(variable);
      return '';
    }
    secrets.push({ name: variable, value });
    return value;
  };
  for (const [name, server] of Object.entries(servers)) {
    if ('command' in server) {
      const secretEnv = Object.fromEntries(
        Object.entries(envFromPairs(server.envFrom)).map(([target, source]) => [target, read(source)]),
      );
      const cwd =
        server.cwd === undefined
          ? agentRoot
          : isAbsolute(server.cwd)
            ? server.cwd
            : resolve(agentRoot, server.cwd);
      launches.push({
        kind: 'stdio',
        name,
        command: server.command,
        args: server.args ?? [],
        env: server.env ?? {},
        secretEnv,
        cwd,
      });
    } else {
      const secretHeaders = Object.fromEntries(
        Object.entries(server.headersFrom ?? {}).map(([header, source]) => [header, read(source)]),
      );
      if (server.bearerTokenFrom) secretHeaders.Authorization = `Bearer ${read(server.bearerTokenFrom)}`;
      launches.push({ kind: 'http', name, url: server.url, headers: server.headers ?? {}, secretHeaders });
    }
  }
  if (missing.length > 0) {
    const names = [...new Set(missing)];
    const are = names.length > 1 ? 'are' : 'is';
    return {
      ok: false,
      message: `${names.join(', ')} ${are} not set in Ribosome's environment: an MCP server of the codon takes ${names.length > 1 ? 'their values' : 'its value'} as a secret (envFrom, headersFrom, bearerTokenFrom)`,
    };
  }
  return { ok: true, servers: launches, secrets };
}
