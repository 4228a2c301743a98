import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writeTurns } from '../helpers/plans.ts';

const { serve } = e2eResources();

describe('agent: claude-code (the real CLI against the scripted provider)', () => {
  it('runs a codon: the file exists and events arrive in order', { timeout: 120_000 }, async () => {
    const plan = `name: cc\nagent: claude-code\nmodel: claude-sonnet-4-5\ncodons:\n  - id: hello\n    name: Hello\n    prompt: Create hello.txt containing hi.\n`;
    const { client, root } = await serve(plan, `turns:\n${writeTurns('hello.txt', 'hi')}`, [], {
      CLAUDE_CODE_MAX_RETRIES: '0',
    });
    if (!client.handshake.eventHistory.some((e) => e.type === 'server.idle')) {
      await client.next('server.idle', () => true, 100_000);
    }
    const history = await client.syncHistory();
    const order = history
      .map((e): string => e.type)
      .filter((type) =>
        ['codon.started', 'assistant.action', 'tool.result', 'token.usage', 'codon.completed'].includes(type),
      );
    const first = (type: string) => order.indexOf(type);
    expect(first('codon.started')).toBe(0);
    expect(first('assistant.action')).toBeGreaterThan(first('codon.started'));
    expect(first('tool.result')).toBeGreaterThan(first('assistant.action'));
    expect(first('token.usage')).toBeGreaterThan(first('codon.started'));
    expect(order.at(-1)).toBe('codon.completed');
    const completed = history.find((e) => e.type === 'codon.completed');
    expect(completed?.type === 'codon.completed' && completed.data).toMatchObject({
      success: true,
      exitStatus: { type: 'success' },
    });
    const tool = history.find((e) => e.type === 'tool.result');
    expect(tool?.type === 'tool.result' && tool.data.toolName).toBe('Write');
    expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('hi');
  });
});
