/**
 * The sandbox every agent runs in (docs/agents.md#the-sandbox): bubblewrap's command line for a
 * SandboxLaunch, the environment inside, the network gate on the host side, and whether this
 * machine supports it.
 */
export { type PathKind, SANDBOX_SOCKET, type SandboxArgvContext, sandboxArgv } from './argv.ts';
export { type CommandLine, sandboxedCommand } from './command.ts';
export { endSandbox } from './end-sandbox.ts';
export { proxyUrl, sandboxEnv } from './env.ts';
export { defaultHidden, serviceSockets } from './hidden.ts';
export { formatHostPort, type HostPort, hostAllowed, matchesHost, parseHostPort } from './host-match.ts';
export type { SandboxDenial, SandboxLaunch } from './launch.ts';
export { GATE_PORT, gatePort, type NetworkGate, startNetworkGate } from './network-gate.ts';
export { type SandboxSupport, sandboxSupport } from './support.ts';
