import type { McpLaunch } from '../mcp/mcp-launch.ts';

/**
 * MCP servers for Codex (`[mcp_servers.<name>]`, codex-cli 0.171). Pure.
 *
 * - Isolated (our own CODEX_HOME): the tables are written into its config.toml, secrets and all; the
 *   file is readable by its owner alone and rewritten without them once Codex exits.
 * - User (the user's CODEX_HOME, never written): `-c` overrides, which any `ps` shows, so no secret
 *   goes there. Codex takes secrets by variable instead (`env_vars` passes a variable of its own
 *   environment to a stdio server, `env_http_headers` names a header's variable): they are set in
 *   Codex's environment, and `shell_environment_policy.set` empties each for its shell commands.
 */

/** Codex waits this long for its MCP servers before its first request, so their tools are in it. */
export const MCP_STARTUP_GRACE_MS = 30_000;

/** A TOML string (JSON's escapes are TOML basic string escapes) or array of them. */
const str = (value: string): string => JSON.stringify(value);
const list = (values: readonly string[]): string => `[${values.map(str).join(', ')}]`;
/** An inline table of strings; keys quoted (header names may hold `.` or `'`). */
const table = (record: Readonly<Record<string, string>>): string =>
  `{ ${Object.entries(record)
    .map(([key, value]) => `${str(key)} = ${str(value)}`)
    .join(', ')} }`;

/** The config.toml tables of an isolated home, secrets written in. */
export function codexMcpTables(servers: readonly McpLaunch[]): string {
  return servers
    .map((server) => {
      const lines = [`[mcp_servers.${server.name}]`];
      if (server.kind === 'stdio') {
        lines.push(
          `command = ${str(server.command)}`,
          `args = ${list(server.args)}`,
          `cwd = ${str(server.cwd)}`,
        );
        lines.push(`env = ${table({ ...server.env, ...server.secretEnv })}`);
      } else {
        lines.push(
          `url = ${str(server.url)}`,
          `http_headers = ${table({ ...server.headers, ...server.secretHeaders })}`,
        );
      }
      return `${lines.join('\n')}\n`;
    })
    .join('\n');
}

/** The settings every run with MCP servers gets (no secret): wait for them before the first request. */
export function codexMcpGrace(servers: readonly McpLaunch[]): string[] {
  return servers.length > 0 ? [`mcp_optional_startup_grace_ms=${MCP_STARTUP_GRACE_MS}`] : [];
}

export type CodexMcpOverrides =
  | { ok: true; settings: string[]; env: Record<string, string> }
  | { ok: false; message: string };

/**
 * The servers as `-c` settings for the user's own CODEX_HOME, their secrets in `env` (Codex's own
 * environment) by name: a stdio server's under the name it reads (`env_vars` keeps names), a header's
 * under RIBOSOME_MCP_<server>_<n>. Two servers wanting one name with different values cannot both be.
 */
export function codexMcpOverrides(servers: readonly McpLaunch[]): CodexMcpOverrides {
  const settings: string[] = [];
  const env: Record<string, string> = {};
  for (const server of servers) {
    // Bare: Codex splits a -c key at its dots, quotes and all (a server's name is a bare TOML key).
    const key = `mcp_servers.${server.name}`;
    const secrets: Record<string, string> =
      server.kind === 'stdio'
        ? server.secretEnv
        : Object.fromEntries(
            Object.values(server.secretHeaders).map((value, index) => [
              headerVariable(server.name, index),
              value,
            ]),
          );
    for (const [name, value] of Object.entries(secrets)) {
      if (env[name] !== undefined && env[name] !== value)
        return {
          ok: false,
          message: `Codex with agentConfig: user passes MCP secrets by variable, and two of the codon's servers want ${name} with different values: give one of them another name (envFrom: { OTHER_NAME: ${name} }), or use agentConfig: isolated`,
        };
      env[name] = value;
    }
    if (server.kind === 'stdio') {
      settings.push(
        `${key}.command=${str(server.command)}`,
        `${key}.args=${list(server.args)}`,
        `${key}.cwd=${str(server.cwd)}`,
      );
      if (Object.keys(server.env).length > 0) settings.push(`${key}.env=${table(server.env)}`);
      if (Object.keys(secrets).length > 0) settings.push(`${key}.env_vars=${list(Object.keys(secrets))}`);
    } else {
      settings.push(`${key}.url=${str(server.url)}`);
      if (Object.keys(server.headers).length > 0)
        settings.push(`${key}.http_headers=${table(server.headers)}`);
      const named = Object.keys(server.secretHeaders).map((header, index) => [
        header,
        headerVariable(server.name, index),
      ]);
      if (named.length > 0) settings.push(`${key}.env_http_headers=${table(Object.fromEntries(named))}`);
    }
  }
  // Its shell commands see these variables empty: the servers' secrets are theirs alone.
  for (const name of Object.keys(env)) settings.push(`shell_environment_policy.set.${name}=""`);
  return { ok: true, settings: [...codexMcpGrace(servers), ...settings], env };
}

/** The variable holding a remote server's secret header number `index`. */
function headerVariable(server: string, index: number): string {
  return `RIBOSOME_MCP_${server.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase()}_HEADER_${index + 1}`;
}
