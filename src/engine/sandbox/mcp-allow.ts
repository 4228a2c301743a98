import type { McpServer } from '../../plan/mcp-schema.ts';
import type { EffectiveSandbox } from '../../plan/sandbox-resolve.ts';

/**
 * The codon's sandbox with its remote MCP servers' hosts added to the network gate's allowlist, each
 * as `host:port` (only that port): the plan that names a server means its agent to reach it, and
 * nothing else of that host. An open network stays open. Pure.
 */
export function withMcpHosts(
  sandbox: EffectiveSandbox,
  servers: Readonly<Record<string, McpServer>>,
): EffectiveSandbox {
  if (sandbox.network === 'open') return sandbox;
  const hosts = Object.values(servers).flatMap((server) => ('url' in server ? [hostPortOf(server.url)] : []));
  if (hosts.length === 0) return sandbox;
  return { ...sandbox, network: { allow: [...new Set([...sandbox.network.allow, ...hosts])] } };
}

/** `host:port` of a URL, the scheme's port when it names none (IPv6 in brackets, as URL gives it). */
function hostPortOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
}
