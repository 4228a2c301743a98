import type { McpLaunch } from '../mcp/mcp-launch.ts';
import { withoutAgentKeys } from '../mcp/without-keys.ts';

/**
 * The `mcp` of opencode's config (1.18) for the codon's servers, secrets written in: a stdio server
 * `{ type: "local", command: [command, ...args], environment, cwd }`, a remote one `{ type: "remote",
 * url, headers, oauth: false }` (its headers authenticate it: opencode does not go looking for an
 * OAuth login). opencode names their tools `<server>_<tool>`. Pure.
 */
export function opencodeMcp(servers: readonly McpLaunch[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    servers.map((server) => [
      server.name,
      server.kind === 'stdio'
        ? localServer(server)
        : {
            type: 'remote',
            url: server.url,
            headers: { ...server.headers, ...server.secretHeaders },
            oauth: false,
          },
    ]),
  );
}

/** A stdio server, started through `env -u` (opencode gives it its own environment, its LLM key included). */
function localServer(server: Extract<McpLaunch, { kind: 'stdio' }>): Record<string, unknown> {
  const environment = { ...server.env, ...server.secretEnv };
  const line = withoutAgentKeys(server, environment);
  return { type: 'local', command: [line.command, ...line.args], environment, cwd: server.cwd };
}
