import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRun } from '../../../src/agents/agent-adapter.ts';
import { settleOnExit, writeSecretFile } from '../../../src/agents/mcp/secret-file.ts';
import { notStarted } from '../../../src/agents/spawn-agent.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

/** A run that exits when `exit` is called. */
function pendingRun(): { run: AgentRun; exit(): Promise<void> } {
  let exit = () => {};
  const exited = new Promise<void>((resolve) => {
    exit = resolve;
  });
  const run = notStarted(exited.then(() => 'ended'));
  return {
    run,
    exit: async () => {
      exit();
      await run.exited;
      // The cleanup runs on the exit's own continuation: one turn of the event loop later.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('a config file holding MCP secrets', () => {
  let temp: TempRoot;
  beforeEach(async () => {
    temp = await makeTempRoot();
  });
  afterEach(() => temp.cleanup());

  it('is readable by its owner alone, and rewritten without them once the process exits', async () => {
    const file = join(temp.dir, 'settings.json');
    const { run, exit } = pendingRun();
    settleOnExit(run.exited, file, writeSecretFile(file, '{"secret":"s3cret"}'), '{}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('s3cret');
    await exit();
    expect(readFileSync(file, 'utf8')).toBe('{}');
  });

  it('is removed when nothing replaces it; a later write (the next turn) is left to its own process', async () => {
    const file = join(temp.dir, 'mcp.json');
    const first = pendingRun();
    settleOnExit(first.run.exited, file, writeSecretFile(file, 'one'));
    const second = pendingRun();
    settleOnExit(second.run.exited, file, writeSecretFile(file, 'two'));
    await first.exit();
    expect(readFileSync(file, 'utf8')).toBe('two');
    await second.exit();
    expect(existsSync(file)).toBe(false);
  });
});
