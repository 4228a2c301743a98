import { describe, expect, it } from 'vitest';
import { planMcpServers } from '../../../src/clients/doctor/mcp-servers.ts';
import type { McpServer } from '../../../src/plan/mcp-schema.ts';

const codon = (id: string, mcpServers: Record<string, McpServer>) => ({ id, mcpServers });

describe('the MCP servers doctor checks for a plan', () => {
  it('each name and entry once, with the codons that get it; one name with two entries twice', () => {
    const a = { command: 'node', args: ['a.js'] };
    const other = { command: 'node', args: ['other.js'] };
    const web = { url: 'http://127.0.0.1:9/mcp' };
    expect(
      planMcpServers({
        codons: [
          codon('one', { a, web }),
          codon('two', { a }),
          codon('three', { a: other }),
          codon('four', {}),
        ],
      }),
    ).toEqual([
      { name: 'a', server: a, codons: ['one', 'two'] },
      { name: 'web', server: web, codons: ['one'] },
      { name: 'a', server: other, codons: ['three'] },
    ]);
  });
});
