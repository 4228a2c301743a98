import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStart } from '../../src/agents/agent-adapter.ts';
import { ClaudeCodeAdapter } from '../../src/agents/claude-code/claude-code-adapter.ts';

/**
 * Starts the Claude Code adapter on a fake `claude` (a shell script `body`, in `dir`) with the process
 * environment overridden by `env` (undefined removes a variable) for the start, and waits for it to exit.
 */
export async function runFakeClaude(options: {
  dir: string;
  body: string;
  config?: 'isolated' | 'user';
  env?: Record<string, string | undefined>;
  start?: Partial<AgentStart>;
}): Promise<void> {
  const fake = join(options.dir, 'claude');
  writeFileSync(fake, `#!/bin/sh\n${options.body}\n`);
  chmodSync(fake, 0o755);
  const overrides = { RIBOSOME_CLAUDE_BIN: fake, ...options.env };
  const saved = Object.fromEntries(Object.keys(overrides).map((key) => [key, process.env[key]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(overrides);
  try {
    const run = new ClaudeCodeAdapter(options.config ? { config: options.config } : {}).start({
      prompt: 'Do it.',
      model: 'm',
      cwd: options.dir,
      env: {},
      providerBaseUrl: 'http://127.0.0.1:9',
      stateDir: join(options.dir, 'state'),
      mark: 'test-mark',
      ...options.start,
    });
    await run.exited;
  } finally {
    apply(saved);
  }
}
