import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentRun, AgentStart } from '../agent-adapter.ts';
import { writeLaunchFile } from '../mcp/launch-file.ts';
import { providerEnv } from '../provider-env.ts';
import { sandboxWith } from '../sandbox-homes.ts';
import { notStarted, spawnAgent } from '../spawn-agent.ts';

const BIN = resolve(import.meta.dirname, '../../../bin/ribosome');

/** Ribosome's own agent (`ribosome agent`), started as a child process like any other agent. */
export class BuiltinAdapter implements AgentAdapter {
  readonly kind = 'builtin';

  start(options: AgentStart): AgentRun {
    const sessions = join(options.stateDir, 'sessions');
    // Made here, not by the agent: in the sandbox only what exists can be bound writable, and the
    // hidden state directory around it is read-only.
    if (options.sandbox) mkdirSync(sessions, { recursive: true });
    const args = ['agent', '--model', options.model, '--cwd', options.cwd];
    // As Claude Code: messages on stdin, each printed back as the agent takes it up.
    args.push('--input-format', 'stream-json', '--replay-user-messages');
    args.push('--session-dir', sessions);
    if (options.dataDir) args.push('--data-dir', options.dataDir);
    if (options.systemPrompt) args.push('--system-prompt', options.systemPrompt);
    if (options.appendSystemPrompt) args.push('--append-system-prompt', options.appendSystemPrompt);
    // Forked: the resumed session stays as it was, so an attempt that failed (and was rolled back)
    // leaves no turns behind for a retry, a redo or a later codon that continues the same session.
    if (options.resumeSessionId) args.push('--resume', options.resumeSessionId, '--fork-session');
    // Its MCP servers, secrets included, in a file only this user may read (never on the command
    // line, nor in the agent's environment), one per run, gone once the run has ended.
    const servers = options.mcpServers ?? [];
    const mcpFile =
      servers.length > 0 ? join(options.stateDir, `mcp-servers-${options.mark}.json`) : undefined;
    if (mcpFile) {
      try {
        mkdirSync(options.stateDir, { recursive: true });
        writeLaunchFile(mcpFile, servers);
      } catch (error) {
        return notStarted(`its MCP servers could not be written to ${mcpFile}: ${(error as Error).message}`);
      }
      args.push('--mcp-servers', mcpFile);
    }
    const run = spawnAgent({
      command: BIN,
      args,
      cwd: options.cwd,
      env: { ...providerEnv(options), ...options.env },
      stdin: options.prompt,
      input: 'stream-json',
      mark: options.mark,
      ...sandboxWith(options.sandbox, { writable: [sessions], readOnly: mcpFile ? [mcpFile] : [] }),
    });
    if (mcpFile)
      void run.exited
        .then(() => rmSync(mcpFile, { force: true }))
        .catch(() => {
          // Left in the private state directory; the next run of the server writes its own.
        });
    return run;
  }
}
