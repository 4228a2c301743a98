/**
 * The deny rules Ribosome gives the installed Claude Code (its data directory read-only) name only
 * tools that version has: it prints no `matches no known tool` warning (issue 30: four a codon, for
 * MultiEdit). `claude -p ''` with stdin closed reads its settings, then stops for want of a prompt,
 * before any request.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { claudeBinary } from '../../src/agents/claude-code/claude-binary.ts';
import { claudeSettings, writingTools } from '../../src/agents/claude-code/claude-settings.ts';
import { claudeVersion } from '../../src/agents/claude-code/claude-version.ts';
import { describeWithClis } from '../helpers/agent-clis.ts';
import { tempDir } from '../helpers/server-process.ts';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

/** What the installed Claude Code prints on stderr as it starts with `settings`. */
function startWith(settings: string): string {
  const dir = tempDir('ribosome-claude-deny-');
  dirs.push(dir);
  const run = spawnSync(claudeBinary(), ['-p', '', '--settings', settings], {
    cwd: dir.path,
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: dir.path,
      CLAUDE_CONFIG_DIR: join(dir.path, 'config'),
      ANTHROPIC_API_KEY: 'offline',
      // Nothing listens there: were it to send a request, it would go nowhere.
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    },
  });
  return `${run.stdout}${run.stderr}`;
}

describeWithClis('Claude Code: deny rules for the tools it has', [claudeBinary()], () => {
  it('its version is known, and the rules Ribosome gives it draw no warning', () => {
    const version = claudeVersion(claudeBinary());
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const settings = claudeSettings(['/data/x', '/real/data'], version) ?? '';
    const said = startWith(settings);
    // It read the settings and stopped at the missing prompt.
    expect(said).toMatch(/Input must be provided/);
    expect(said).not.toMatch(/matches no known tool/);
  }, 90_000);

  it('a rule naming a tool it lacks does draw the warning (what the check would see)', () => {
    const said = startWith(JSON.stringify({ permissions: { deny: ['NoSuchTool(//data/x)'] } }));
    expect(said).toMatch(/Permission deny rule "NoSuchTool\(\/\/data\/x\)" matches no known tool/);
  }, 90_000);
});

it('MultiEdit is named for Claude Code 1 or an unknown version only', () => {
  expect(writingTools('2.1.197')).toEqual(['Edit', 'Write', 'NotebookEdit']);
  expect(writingTools('1.0.67')).toContain('MultiEdit');
  expect(writingTools(undefined)).toContain('MultiEdit');
});
