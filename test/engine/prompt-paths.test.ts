import { describe, expect, it } from 'vitest';
import { renderPromptPaths } from '../../src/engine/prompt-paths.ts';

const paths = { agentRoot: '/e/agentRoot', dataDir: '/e/agentRoot/ribosome-data' };

describe('codon prompt variables', () => {
  it.each([
    ['Read {{dataDir}}/a.csv', 'Read /e/agentRoot/ribosome-data/a.csv'],
    ['in {{ agentRoot }} and {{agentRoot}}', 'in /e/agentRoot and /e/agentRoot'],
    ['keep {{other}} and {{ codon.id }} as written', 'keep {{other}} and {{ codon.id }} as written'],
    ['escaped \\{{dataDir}}', 'escaped {{dataDir}}'],
    ['no variables', 'no variables'],
  ])('%s', (prompt, expected) => {
    expect(renderPromptPaths(prompt, paths)).toBe(expected);
  });

  it('leaves {{dataDir}} as written when there is no data directory', () => {
    expect(renderPromptPaths('{{dataDir}} in {{agentRoot}}', { agentRoot: '/r' })).toBe('{{dataDir}} in /r');
  });
});
