import { z } from 'zod';

/**
 * The `sandbox` setting of a plan, a codon and the config file (docs/agents.md#the-sandbox).
 * `auto`: on where the machine supports it (bubblewrap and socat on Linux), else off with one warning.
 * `on`: the run refuses to start without it. `off`: agents run with the server's rights.
 */
export const SandboxMode = z.enum(['auto', 'on', 'off']);
export type SandboxMode = z.infer<typeof SandboxMode>;

/** A host the sandboxed agent may reach through the network gate: `host`, `host:port` or `*.domain`. */
export const SandboxHost = z
  .string()
  .regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, {
    message: 'Expected a host, host:port or *.domain (for example registry.npmjs.org or 127.0.0.1:4873).',
  })
  .refine(
    (host) => {
      const port = /:(\d+)$/.exec(host)?.[1];
      return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
    },
    { message: 'A port is a number from 1 to 65535.' },
  );

export const SandboxNetwork = z
  .union([
    z.literal('open').describe("The machine's network, as without a sandbox (the control port included)."),
    z.strictObject({
      allow: z
        .array(SandboxHost)
        .default([])
        .describe('Hosts reachable besides the LLM route, through the HTTP(S) proxy the agent is given.'),
    }),
  ])
  .describe("The agent's network: its LLM route and `allow` (default: nothing else), or `open`.");

/** Paths: absolute, `~/...` (the user's home), or relative to the agent root. */
const SandboxPaths = z.array(z.string().min(1));

export const SandboxSettings = z
  .strictObject({
    mode: SandboxMode.optional().describe('auto (default), on or off.'),
    gates: z.boolean().optional().describe('Run verification gates inside the sandbox too. Default false.'),
    rig: z.boolean().optional().describe('Run rig setup commands inside the sandbox too. Default false.'),
    allowWrite: SandboxPaths.optional().describe('More paths the agent may write.'),
    readOnly: SandboxPaths.optional().describe('More paths the agent may read and not write.'),
    hide: SandboxPaths.optional().describe('More paths the agent may not see.'),
    network: SandboxNetwork.optional(),
  })
  .describe('How agents are confined (docs/agents.md#the-sandbox).');
export type SandboxSettings = z.infer<typeof SandboxSettings>;

/** `sandbox: on` is short for `sandbox: {mode: on}`. */
export const SandboxSetting = z.union([SandboxMode, SandboxSettings]);
export type SandboxSetting = z.infer<typeof SandboxSetting>;
