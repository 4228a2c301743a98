import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import type { McpLaunch } from '../mcp/mcp-launch.ts';

/**
 * Claude Code logs each MCP server's connection in its cache (`<cache>/claude-cli-nodejs/<project>/
 * mcp-logs-<server>/<time>.jsonl`), a remote server's headers included, secrets and all (2.1.197:
 * "HTTP transport options: {... headers ...}"). Once it has exited, the secrets in those logs are
 * replaced by `[redacted:<name>]`; the rest of each log is kept for whoever debugs a server.
 */
export function redactMcpLogs(cache: string, servers: readonly McpLaunch[]): void {
  const redactor = new SecretRedactor();
  for (const server of servers) {
    const secrets = server.kind === 'stdio' ? server.secretEnv : server.secretHeaders;
    for (const [name, value] of Object.entries(secrets)) redactor.add(`${server.name}.${name}`, value);
  }
  if (redactor.empty) return;
  const root = join(cache, 'claude-cli-nodejs');
  if (!existsSync(root)) return;
  for (const project of readdirSync(root, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    for (const logs of readdirSync(join(root, project.name), { withFileTypes: true })) {
      if (!logs.isDirectory() || !logs.name.startsWith('mcp-logs-')) continue;
      const dir = join(root, project.name, logs.name);
      for (const file of readdirSync(dir)) redactFile(join(dir, file), redactor);
    }
  }
}

/** `path` with every secret redacted, each JSON line through its strings (a header inside a quoted message too). */
function redactFile(path: string, redactor: SecretRedactor): void {
  const text = readFileSync(path, 'utf8');
  if (!redactor.contains(text)) return;
  const lines = text.split('\n').map((line) => {
    try {
      return JSON.stringify(redactor.value(JSON.parse(line)));
    } catch {
      return redactor.text(line);
    }
  });
  writeFileSync(path, lines.join('\n'));
}
