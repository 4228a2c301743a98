import type { McpLaunch } from '../mcp/mcp-launch.ts';

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
        ? {
            type: 'local',
            command: [server.command, ...server.args],
            environment: { ...server.env, ...server.secretEnv },
            cwd: server.cwd,
          }
        : {
            type: 'remote',
            url: server.url,
            headers: { ...server.headers, ...server.secretHeaders },
            oauth: false,
          },
    ]),
  );
}
