import { describe, expect, it } from 'vitest';
import { envFromPairs, McpServers, mergeMcpServers, secretVarsOf } from '../../src/plan/mcp-schema.ts';

describe('mcpServers in a plan', () => {
  it('takes stdio and remote servers, and refuses names agents cannot prefix tools with', () => {
    const ok = McpServers.safeParse({
      files: { command: 'node', args: ['server.js'], env: { MODE: 'x' }, envFrom: 'FILES_TOKEN' },
      'web-search': { url: 'https://mcp.example.com/mcp', headersFrom: { 'X-Key': 'SEARCH_KEY' } },
    });
    expect(ok.success).toBe(true);
    for (const name of ['a__b', '-a', 'a b', 'x'.repeat(41), 'a.b']) {
      expect(McpServers.safeParse({ [name]: { command: 'node' } }).success, name).toBe(false);
    }
  });

  it('refuses an entry that is neither kind, a URL with a password, and a secret written as a header name', () => {
    expect(McpServers.safeParse({ s: { command: 'node', url: 'http://x' } }).success).toBe(false);
    expect(McpServers.safeParse({ s: { url: 'http://u:p@127.0.0.1/mcp' } }).success).toBe(false);
    expect(McpServers.safeParse({ s: { url: 'ftp://127.0.0.1/mcp' } }).success).toBe(false);
    expect(
      McpServers.safeParse({ s: { url: 'http://127.0.0.1/mcp', headers: { 'a b': 'x' } } }).success,
    ).toBe(false);
    expect(McpServers.safeParse({ s: { command: 'node', envFrom: ['1BAD'] } }).success).toBe(false);
  });

  it("a codon's entries add to the plan's, replace them by name, and null removes one", () => {
    const plan = { a: { command: 'a' }, b: { command: 'b' }, c: { url: 'http://127.0.0.1/mcp' } };
    expect(mergeMcpServers(plan, { b: { command: 'b2' }, c: null, d: { command: 'd' } })).toEqual({
      a: { command: 'a' },
      b: { command: 'b2' },
      d: { command: 'd' },
    });
    expect(mergeMcpServers(undefined, undefined)).toEqual({});
  });

  it('envFrom as a name, a list or renames; the secret variables of each kind', () => {
    expect(envFromPairs('TOKEN')).toEqual({ TOKEN: 'TOKEN' });
    expect(envFromPairs(['A', 'B'])).toEqual({ A: 'A', B: 'B' });
    expect(envFromPairs({ API_KEY: 'MY_KEY' })).toEqual({ API_KEY: 'MY_KEY' });
    expect(secretVarsOf({ command: 'x', envFrom: { A: 'S', B: 'S' } })).toEqual(['S']);
    expect(
      secretVarsOf({ url: 'http://127.0.0.1/mcp', headersFrom: { 'X-A': 'H' }, bearerTokenFrom: 'T' }),
    ).toEqual(['H', 'T']);
  });
});
