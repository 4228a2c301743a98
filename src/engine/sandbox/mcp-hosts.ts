import type { McpServer } from '../../plan/mcp-schema.ts';
import type { EffectiveSandbox } from '../../plan/sandbox-resolve.ts';

/**
 * The codon's sandbox with its remote MCP servers' hosts let through its network gate
 * (docs/agents.md#the-sandbox): the CLI inside reaches them through the gate, as it reaches its LLM
 * route, each as `host:port` (the URL's port, else its scheme's), so a server on this machine opens
 * its own port and no other. Stdio servers need nothing: the CLI starts them inside. Pure.
 */
export function withMcpHosts(
  sandbox: EffectiveSandbox,
  servers: Readonly<Record<string, McpServer>>,
): EffectiveSandbox {
  const { network } = sandbox;
  if (network === 'open') return sandbox;
  const hosts = Object.values(servers).flatMap((server) => ('url' in server ? [hostPortOf(server.url)] : []));
  const added = hosts.filter((host): host is string => host !== undefined && !network.allow.includes(host));
  if (added.length === 0) return sandbox;
  return { ...sandbox, network: { allow: [...network.allow, ...new Set(added)] } };
}

/** `host:port` of an http(s) URL (IPv6 in brackets), or undefined when it is not one. */
export function hostPortOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return `${url.hostname}:${port}`;
  } catch {
    return undefined;
  }
}
