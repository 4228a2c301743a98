import { describe, expect, it } from 'vitest';
import { mcpLaunches } from '../../../src/agents/mcp/mcp-launch.ts';

describe('a codon’s MCP servers as its agent gets them', () => {
  it('reads each secret from the environment, keeps literals apart, resolves cwd against the agent root', () => {
    const launches = mcpLaunches(
      {
        files: {
          command: 'node',
          args: ['s.js'],
          env: { MODE: 'x' },
          envFrom: { TOKEN: 'FILES_SECRET' },
          cwd: 'tools',
        },
        web: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-A': 'a' }, bearerTokenFrom: 'WEB_TOKEN' },
      },
      '/exec/agentRoot',
      { FILES_SECRET: 'files-secret-value', WEB_TOKEN: 'web-token-value' },
    );
    expect(launches).toEqual({
      ok: true,
      servers: [
        {
          kind: 'stdio',
          name: 'files',
          command: 'node',
          args: ['s.js'],
          env: { MODE: 'x' },
          secretEnv: { TOKEN: 'files-secret-value' },
          cwd: '/exec/agentRoot/tools',
        },
        {
          kind: 'http',
          name: 'web',
          url: 'http://127.0.0.1:9/mcp',
          headers: { 'X-A': 'a' },
          secretHeaders: { Authorization: 'Bearer web-token-value' },
        },
      ],
      secrets: [
        { name: 'FILES_SECRET', value: 'files-secret-value' },
        { name: 'WEB_TOKEN', value: 'web-token-value' },
      ],
    });
  });

  it('an unset or empty secret variable fails the launch, naming every one', () => {
    const launches = mcpLaunches({ a: { command: 'a', envFrom: ['ONE', 'TWO'] } }, '/r', { TWO: '' });
    expect(launches.ok).toBe(false);
    if (!launches.ok) expect(launches.message).toMatch(/^ONE, TWO are not set in Ribosome's environment/);
  });
});
