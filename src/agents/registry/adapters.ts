import type { Agent } from '../../plan/primitives.ts';
import type { AgentAdapter, AgentAdapters, AgentConfig } from '../agent-adapter.ts';

import { BuiltinAdapter } from '../builtin/builtin-adapter.ts';
import { ClaudeCodeAdapter } from '../claude-code/claude-code-adapter.ts';
import { CodexAdapter } from '../codex/codex-adapter.ts';
import { GeminiAdapter } from '../gemini/gemini-adapter.ts';
import { OpencodeAdapter } from '../opencode/opencode-adapter.ts';
import { notStarted } from '../spawn-agent.ts';

/** Every agent's adapter, as a server runs them. */
export function agentAdapters(
  options: { claudeConfig?: AgentConfig; agentConfig?: AgentConfig } = {},
): AgentAdapters {
  return {
    builtin: new BuiltinAdapter(),
    'claude-code': new ClaudeCodeAdapter({
      config: options.claudeConfig ?? options.agentConfig ?? 'isolated',
    }),
    codex: new CodexAdapter({ config: options.agentConfig ?? 'isolated' }),
    gemini: new GeminiAdapter({ config: options.agentConfig ?? 'isolated' }),
    opencode: new OpencodeAdapter({ config: options.agentConfig ?? 'isolated' }),
  };
}

/** The adapter of `kind`, or one whose runs fail to start saying that this server cannot run it. */
export function adapterFor(adapters: AgentAdapters, kind: Agent): AgentAdapter {
  return (
    adapters[kind] ?? {
      kind,
      start: (options) => notStarted(`this server has no adapter for the ${kind} agent`, options.mark),
    }
  );
}
