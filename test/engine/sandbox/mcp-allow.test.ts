import { describe, expect, it } from 'vitest';
import { withMcpHosts } from '../../../src/engine/sandbox/mcp-allow.ts';
import type { EffectiveSandbox } from '../../../src/plan/sandbox-resolve.ts';
import { hostAllowed } from '../../../src/platform/sandbox/host-match.ts';

const sandbox = (network: EffectiveSandbox['network']): EffectiveSandbox => ({
  mode: 'on',
  gates: false,
  rig: false,
  allowWrite: [],
  readOnly: [],
  hide: [],
  network,
});

describe("a codon's sandbox and its remote MCP servers", () => {
  it("lets the gate pass each remote server's host, on its port alone", () => {
    const result = withMcpHosts(sandbox({ allow: ['registry.npmjs.org'] }), {
      files: { command: 'node' },
      local: { url: 'http://127.0.0.1:8931/mcp' },
      search: { url: 'https://mcp.example.com/mcp' },
      plain: { url: 'http://mcp.example.org/mcp' },
      v6: { url: 'http://[::1]:7000/mcp' },
    });
    const allow = result.network === 'open' ? [] : result.network.allow;
    expect(allow).toEqual([
      'registry.npmjs.org',
      '127.0.0.1:8931',
      'mcp.example.com:443',
      'mcp.example.org:80',
      '[::1]:7000',
    ]);
    expect(hostAllowed(allow, { host: '127.0.0.1', port: 8931 })).toBe(true);
    expect(hostAllowed(allow, { host: '127.0.0.1', port: 8932 })).toBe(false);
    expect(hostAllowed(allow, { host: '::1', port: 7000 })).toBe(true);
  });

  it('leaves an open network, and a codon without remote servers, as they are', () => {
    const open = sandbox('open');
    expect(withMcpHosts(open, { web: { url: 'http://127.0.0.1:1/mcp' } })).toBe(open);
    const gated = sandbox({ allow: [] });
    expect(withMcpHosts(gated, { files: { command: 'node' } })).toBe(gated);
  });
});
