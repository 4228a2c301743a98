import { describe, expect, it } from 'vitest';
import { hostPortOf, withMcpHosts } from '../../../src/engine/sandbox/mcp-hosts.ts';
import type { EffectiveSandbox } from '../../../src/plan/sandbox-resolve.ts';
import { hostAllowed } from '../../../src/platform/sandbox/host-match.ts';

const sandbox = (network: EffectiveSandbox['network']): EffectiveSandbox => ({
  mode: 'on',
  gates: true,
  rig: true,
  allowWrite: [],
  readOnly: [],
  hide: [],
  network,
});

describe("a codon's remote MCP servers through its sandbox's network gate", () => {
  it('each URL as host:port on the allow list, once; stdio servers add nothing', () => {
    const servers = {
      search: { url: 'https://mcp.example.com/mcp' },
      local: { url: 'http://127.0.0.1:8931/mcp' },
      again: { url: 'https://mcp.example.com/other' },
      files: { command: 'node' },
    };
    expect(withMcpHosts(sandbox({ allow: ['registry.npmjs.org'] }), servers).network).toEqual({
      allow: ['registry.npmjs.org', 'mcp.example.com:443', '127.0.0.1:8931'],
    });
  });

  it('the gate passes a server on its own port and no other', () => {
    const result = withMcpHosts(sandbox({ allow: [] }), {
      local: { url: 'http://127.0.0.1:8931/mcp' },
      v6: { url: 'http://[::1]:7000/mcp' },
    });
    const allow = result.network === 'open' ? [] : result.network.allow;
    expect(hostAllowed(allow, { host: '127.0.0.1', port: 8931 })).toBe(true);
    expect(hostAllowed(allow, { host: '127.0.0.1', port: 8932 })).toBe(false);
    expect(hostAllowed(allow, { host: '::1', port: 7000 })).toBe(true);
  });

  it('an open network is left as it is', () => {
    expect(withMcpHosts(sandbox('open'), { a: { url: 'https://x.example' } }).network).toBe('open');
  });

  it('the port of the URL, else of its scheme; IPv6 in brackets', () => {
    expect(hostPortOf('http://example.com/mcp')).toBe('example.com:80');
    expect(hostPortOf('http://[::1]:9000/mcp')).toBe('[::1]:9000');
    expect(hostPortOf('ftp://example.com')).toBeUndefined();
  });
});
