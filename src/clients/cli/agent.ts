/**
 * `ribosome agent`: the built-in coding agent. Prompt on stdin (plain text, or Claude Code's stream-json
 * user messages with --input-format stream-json); Claude Code's headless stream-json on stdout; exit 0
 * on success, 1 on error (of the last turn). Provider from ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY.
 */
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { text } from 'node:stream/consumers';
import { type Command, InvalidArgumentError } from 'commander';
import type { Inbox } from '../../agents/builtin/inbox.ts';
import type { BuiltinAgentOptions } from '../../agents/builtin/run-agent.ts';

type Options = {
  model: string;
  cwd: string;
  dataDir?: string;
  resume?: string;
  forkSession?: boolean;
  sessionDir?: string;
  maxTurns: number;
  maxRetries?: number;
  maxTokens: number;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  outputFormat: string;
  inputFormat: string;
  replayUserMessages?: boolean;
  mcpServers?: string;
};

const DEFAULT_MODEL = 'claude-sonnet-4-5';
const DEFAULT_MAX_RETRIES = 2;
/** How long an MCP server may take to start and list its tools (env MCP_TIMEOUT, ms; Claude Code's name). */
const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** How long one MCP tool call may take (env MCP_TOOL_TIMEOUT, ms; Claude Code's name). */
const DEFAULT_MCP_TOOL_TIMEOUT_MS = 600_000;

function count(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

export function registerAgent(program: Command): void {
  program
    .command('agent')
    .description("Ribosome's built-in coding agent: prompt on stdin, Claude Code stream-json on stdout")
    .option('--model <model>', 'model id', DEFAULT_MODEL)
    .option('--cwd <dir>', 'agent root: working directory that every tool is confined to', process.cwd())
    .option('--data-dir <dir>', 'a directory Read may read (through a link) but Write and Edit refuse')
    .option('--resume <sessionId>', 'continue a previous session')
    .option('--fork-session', 'with --resume: save the continued session under a new session ID')
    .option(
      '--session-dir <dir>',
      'where sessions are kept (env RIBOSOME_SESSION_DIR; default <cwd>/../.ribosome/sessions)',
    )
    .option('--max-turns <n>', 'most model calls in this run', count('--max-turns', 1), 100)
    .option(
      '--max-retries <n>',
      `retries of a failed model call (env RIBOSOME_AGENT_MAX_RETRIES; default ${DEFAULT_MAX_RETRIES})`,
      count('--max-retries', 0),
    )
    .option('--max-tokens <n>', 'max_tokens of each model call', count('--max-tokens', 1), 8192)
    .option('--system-prompt <text>', 'replace the default system prompt')
    .option('--append-system-prompt <text>', 'add text after the system prompt')
    // Accepted so one command line can drive either agent; stream-json is the only output.
    .option('-p, --print', 'accepted for Claude Code compatibility (always on)')
    .option('--verbose', 'accepted for Claude Code compatibility')
    .option('--output-format <format>', 'only stream-json is supported', 'stream-json')
    .option(
      '--input-format <format>',
      'text: stdin is the prompt; stream-json: user messages, one JSON object per line (the first is the prompt; later ones join the running turn or start a new one; the agent exits when stdin closes)',
      'text',
    )
    .option(
      '--replay-user-messages',
      'with --input-format stream-json: print each message back as it is taken up',
    )
    .option(
      '--mcp-servers <file>',
      "MCP servers whose tools join the built-in ones (JSON {servers: [...]}, as Ribosome writes it for a codon; env MCP_TIMEOUT and MCP_TOOL_TIMEOUT in ms bound a server's start and each call)",
    )
    .action(async (options: Options) => {
      if (options.outputFormat !== 'stream-json') program.error('error: --output-format must be stream-json');
      const envRetries = process.env.RIBOSOME_AGENT_MAX_RETRIES;
      const maxRetries =
        options.maxRetries ??
        (envRetries === undefined ? DEFAULT_MAX_RETRIES : count('RIBOSOME_AGENT_MAX_RETRIES', 0)(envRetries));
      if (options.inputFormat !== 'text' && options.inputFormat !== 'stream-json')
        program.error('error: --input-format must be text or stream-json');
      if (process.stdin.isTTY) program.error('error: the prompt is read from stdin; pipe it in');
      const streamed = options.inputFormat === 'stream-json';
      let prompt: string | string[];
      let inbox: Inbox | undefined;
      if (streamed) {
        const { createInbox } = await import('../../agents/builtin/inbox.ts');
        const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
        inbox = createInbox(lines, (problem) => process.stderr.write(`${problem}\n`));
        if (!(await inbox.wait(new AbortController().signal)))
          program.error('error: stdin ended before its first user message');
        prompt = inbox.take();
      } else {
        prompt = (await text(process.stdin)).trim();
        if (prompt === '') program.error('error: the prompt on stdin is empty');
      }

      const envMs = (name: string, fallback: number): number => {
        const value = process.env[name];
        if (value === undefined || value === '') return fallback;
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1)
          program.error(`error: ${name} must be a whole number of milliseconds above 0, got "${value}"`);
        return n;
      };
      let mcp: BuiltinAgentOptions['mcp'];
      if (options.mcpServers) {
        const { readLaunchFile } = await import('../../agents/mcp/launch-file.ts');
        const read = readLaunchFile(options.mcpServers);
        if (!read.ok) program.error(`error: ${read.message}`);
        mcp = {
          servers: read.servers,
          env: process.env,
          connectTimeoutMs: envMs('MCP_TIMEOUT', DEFAULT_MCP_TIMEOUT_MS),
          toolTimeoutMs: envMs('MCP_TOOL_TIMEOUT', DEFAULT_MCP_TOOL_TIMEOUT_MS),
        };
      }

      const cwd = resolve(options.cwd);
      const controller = new AbortController();
      const interrupt = () => {
        if (controller.signal.aborted) process.exit(1); // a second signal: stop waiting for cleanup
        controller.abort();
      };
      process.on('SIGTERM', interrupt);
      process.on('SIGINT', interrupt);

      // Loaded here, not at the top: other subcommands should not pay for the agent's modules.
      const { runBuiltinAgent } = await import('../../agents/builtin/run-agent.ts');
      const { DEFAULT_BASE_URL } = await import('../../llm/messages-client.ts');
      const { requestAuth } = await import('../../platform/credentials/credentials.ts');
      const auth = requestAuth(process.env);
      process.exitCode = await runBuiltinAgent({
        prompt,
        ...(inbox ? { inbox } : {}),
        ...(streamed && options.replayUserMessages ? { replay: true } : {}),
        model: options.model,
        cwd,
        sessionDir:
          options.sessionDir ?? process.env.RIBOSOME_SESSION_DIR ?? join(cwd, '..', '.ribosome', 'sessions'),
        ...(options.dataDir ? { dataDir: resolve(options.dataDir) } : {}),
        ...(options.resume ? { resume: options.resume } : {}),
        ...(options.forkSession ? { forkSession: true } : {}),
        maxTurns: options.maxTurns,
        maxRetries,
        maxTokens: options.maxTokens,
        ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
        ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
        baseUrl: process.env.ANTHROPIC_BASE_URL || DEFAULT_BASE_URL,
        ...(auth.apiKey ? { apiKey: auth.apiKey } : {}),
        ...(auth.authToken ? { authToken: auth.authToken } : {}),
        ...(auth.betas ? { betas: auth.betas } : {}),
        credentialSource: auth.source,
        ...(mcp ? { mcp } : {}),
        write: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
        signal: controller.signal,
      });
      process.off('SIGTERM', interrupt);
      process.off('SIGINT', interrupt);
      // The run is over, even if it ended before taking its input up (a run that could not start):
      // an open stdin must not keep the process waiting for messages no turn will read.
      if (streamed) process.stdin.destroy();
    });
}
