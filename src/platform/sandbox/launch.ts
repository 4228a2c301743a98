/**
 * What one sandboxed process may see and reach (docs/agents.md#the-sandbox): the resolved form of a
 * codon's `sandbox` settings, with absolute paths. Built by the engine for each agent run (plus the
 * adapter's own home directories) and turned into a `bwrap` command line by `sandboxArgv`.
 */
export type SandboxLaunch = {
  /** Bound read-write: the agent root, the agent's own home(s) in the execution, `sandbox.allowWrite`. */
  writable: readonly string[];
  /** Bound read-only even where a writable one holds them: the data directory, `sandbox.readOnly`. */
  readOnly: readonly string[];
  /**
   * Hidden: an empty directory (or an empty file) in their place. The execution's `.ribosome/`,
   * `rigArchive/`, other executions, the user's secrets, `sandbox.hide`. A path that does not exist
   * is left out (its parent is read-only, so it cannot be made either).
   */
  hidden: readonly string[];
  /**
   * `open`: the machine's network, as without a sandbox (`sandbox.network: open`). `gated`: a network
   * of its own with loopback only; `127.0.0.1:<port>` inside leads to the gate's Unix socket
   * (NetworkGate), the one way out: the agent's LLM route, and the hosts of `sandbox.network.allow`.
   */
  network: { kind: 'open' } | { kind: 'gated'; socket: string; port: number };
};

/** A connection or request the network gate refused: what was asked for, and why it was refused. */
export type SandboxDenial = {
  /** `connect`: a CONNECT tunnel (HTTPS through the proxy settings); `request`: a plain HTTP request. */
  kind: 'connect' | 'request';
  /** `host:port` asked for. */
  target: string;
  /** For a request: its method and path (no query string). */
  method?: string;
  path?: string;
  /** Why, in words: "not in sandbox.network.allow", "another route of the LLM proxy". */
  reason: string;
};
