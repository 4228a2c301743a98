import type { ServerEvent } from '../../core/protocol/index.ts';

/** What every tool of one `ribosome mcp` shares. */
export type McpContext = {
  /** Where relative paths (plans, executions, ./ribosome-runs) are read from: the MCP server's directory. */
  cwd: string;
  /** The Ribosome servers' access token (`--token`, RIBOSOME_TOKEN), sent to each and given to the runs started. */
  token: string | undefined;
  /** Only the reading tools, and every server connection readonly. */
  readonly: boolean;
  /**
   * A fresh console view (`ribosome log`'s lines, one event at a time, remembering what a line needs of
   * the events before it). Given by the CLI, whose module it is, so this folder imports nothing of it.
   */
  consoleView: () => (event: ServerEvent) => string | undefined;
  /** The environment the runs started are given (the MCP server's own). */
  env: NodeJS.ProcessEnv;
};
