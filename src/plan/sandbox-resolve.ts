import { z } from 'zod';
import {
  type SandboxMode,
  SandboxNetwork,
  type SandboxSetting,
  type SandboxSettings,
} from './sandbox-schema.ts';

/**
 * How a codon's `sandbox` settings combine (docs/agents.md#the-sandbox). Two steps: loading the plan
 * merges the plan's and the codon's (`declaredSandbox`, kept on the RuntimeCodon); the start of a run
 * adds the config file's and the command line's (`effectiveSandbox`). Pure.
 */

/** The plan's and the codon's settings merged; what they leave unset is absent (the config file's, or the default). */
export const DeclaredSandbox = z.object({
  mode: z.enum(['auto', 'on', 'off']).optional().describe('Effective: the codon mode, else the plan one.'),
  gates: z.boolean().optional().describe('Effective: the codon gates, else the plan one.'),
  rig: z.boolean().optional().describe('Effective: the codon rig, else the plan one.'),
  allowWrite: z.array(z.string()).describe("The plan's allowWrite, then the codon's, as written."),
  readOnly: z.array(z.string()).describe("The plan's readOnly, then the codon's, as written."),
  hide: z.array(z.string()).describe("The plan's hide, then the codon's, as written."),
  network: SandboxNetwork.optional().describe("Effective: the codon's network, else the plan's."),
});
export type DeclaredSandbox = z.infer<typeof DeclaredSandbox>;

/** A codon's sandbox once the whole run's settings are known: every field set. */
export type EffectiveSandbox = {
  mode: SandboxMode;
  gates: boolean;
  rig: boolean;
  allowWrite: string[];
  readOnly: string[];
  hide: string[];
  network: 'open' | { allow: string[] };
};

/** `on` is short for `{mode: on}`; absent is `{}`. */
export function sandboxSettingsOf(setting: SandboxSetting | undefined): SandboxSettings {
  if (setting === undefined) return {};
  return typeof setting === 'string' ? { mode: setting } : setting;
}

/** The plan's settings under the codon's: modes and switches the codon's first, lists the plan's then the codon's. */
export function declaredSandbox(
  plan: SandboxSetting | undefined,
  codon: SandboxSetting | undefined,
): DeclaredSandbox {
  const p = sandboxSettingsOf(plan);
  const c = sandboxSettingsOf(codon);
  const mode = c.mode ?? p.mode;
  const gates = c.gates ?? p.gates;
  const rig = c.rig ?? p.rig;
  const network = c.network ?? p.network;
  return {
    ...(mode === undefined ? {} : { mode }),
    ...(gates === undefined ? {} : { gates }),
    ...(rig === undefined ? {} : { rig }),
    allowWrite: [...(p.allowWrite ?? []), ...(c.allowWrite ?? [])],
    readOnly: [...(p.readOnly ?? []), ...(c.readOnly ?? [])],
    hide: [...(p.hide ?? []), ...(c.hide ?? [])],
    ...(network === undefined ? {} : { network }),
  };
}

/**
 * A codon's sandbox in a run: mode from the command line, else the codon's or plan's, else the config
 * file's, else `auto`; the config file's lists come first; network the codon's or plan's, else the
 * config file's, else nothing beyond the LLM route; gates and rig default false.
 */
export function effectiveSandbox(
  declared: DeclaredSandbox,
  config: SandboxSetting | undefined,
  commandLine: SandboxMode | undefined,
): EffectiveSandbox {
  const f = sandboxSettingsOf(config);
  return {
    mode: commandLine ?? declared.mode ?? f.mode ?? 'auto',
    gates: declared.gates ?? f.gates ?? false,
    rig: declared.rig ?? f.rig ?? false,
    allowWrite: [...(f.allowWrite ?? []), ...declared.allowWrite],
    readOnly: [...(f.readOnly ?? []), ...declared.readOnly],
    hide: [...(f.hide ?? []), ...declared.hide],
    network: declared.network ?? f.network ?? { allow: [] },
  };
}
