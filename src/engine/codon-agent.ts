import { mcpLaunches } from '../agents/mcp/mcp-launch.ts';
import { adapterFor } from '../agents/registry/adapters.ts';
import { agentProvider } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { CommandWrap } from '../platform/processes/run-command.ts';
import type { SandboxLaunch } from '../platform/sandbox/launch.ts';
import { AgentPidsFile } from './agent-pids.ts';
import type { Spent } from './codon-phase.ts';
import { CodonRun } from './codon-run.ts';
import type { LifecycleOptions } from './lifecycle-options.ts';
import type { GatesOutcome } from './outcome/gate-result.ts';
import { renderPromptPaths } from './prompt-paths.ts';
import type { MappedOutput } from './stream-mapper.ts';
import { runGates } from './verify/run-gates.ts';

/** One round of a codon's agent: its first run, or a feedback round continuing its session. */
export type AgentStart = {
  resumeSessionId: string | undefined;
  model: string | undefined;
  /** [codon.prompt] */
  prompt?: string;
  /** [0] What the codon's agent spent before this round. */
  costBefore?: number;
  /** The codon's sandbox (docs/agents.md#the-sandbox); absent: unconfined. */
  sandbox?: SandboxLaunch;
};

/** Starts a round of the codon's agent; throws when it cannot (its state directory cannot be made, ...). */
export function startAgent(
  o: LifecycleOptions,
  codon: RuntimeCodon,
  round: AgentStart,
  onOutput: (output: MappedOutput) => void,
): CodonRun {
  const { resumeSessionId, model, prompt = codon.prompt, costBefore = 0, sandbox } = round;
  // Its MCP servers' secrets are read now, from the server's environment, and go to the agent alone.
  const mcp = mcpLaunches(codon.mcpServers, o.agentRoot, process.env);
  if (!mcp.ok) throw new Error(mcp.message);
  // Their variables stay out of the agent's own environment, as the plan's provider keys do.
  const provider = agentProvider(o.provider(codon));
  const mcpVars = [...new Set(mcp.secrets.map((secret) => secret.name))];
  const keyVars = [...(provider.keyVars ?? []), ...mcpVars];
  return new CodonRun({
    codonId: codon.id,
    adapter: adapterFor(o.adapters, codon.agent),
    start: {
      prompt: renderPromptPaths(prompt, { agentRoot: o.agentRoot, dataDir: o.dataDir }),
      model: model ?? codon.model ?? o.defaultModel,
      cwd: o.agentRoot,
      ...(o.dataDir ? { dataDir: o.dataDir } : {}),
      env: codon.env,
      ...provider,
      ...(keyVars.length > 0 ? { keyVars } : {}),
      stateDir: o.agentStateDir,
      ...(resumeSessionId ? { resumeSessionId } : {}),
      ...(codon.systemPrompt ? { systemPrompt: codon.systemPrompt } : {}),
      ...(codon.appendSystemPrompt ? { appendSystemPrompt: codon.appendSystemPrompt } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(mcp.servers.length > 0 ? { mcpServers: mcp.servers } : {}),
    },
    timeoutMs: codon.timeoutMs,
    stallTimeoutMs: codon.stallTimeoutMs,
    stopGraceMs: o.stopGraceMs,
    maxResultChars: o.maxResultChars,
    logger: o.logger,
    onOutput,
    costBefore,
  });
}

/**
 * Records one output of the running round's agent: events as they are, its cost and message count
 * on top of what the codon's earlier rounds spent (`spentBefore`), its session handed to `session`.
 */
export function recordOutput(
  o: Pick<LifecycleOptions, 'recorder' | 'logger'>,
  runId: string,
  codonId: string,
  output: MappedOutput,
  spentBefore: Spent,
  session: (agentSessionId: string) => void,
): void {
  const { recorder } = o;
  const fail = (error: unknown) => o.logger.error({ err: error }, 'recording agent output failed');
  switch (output.kind) {
    case 'event':
      recorder.publish(output.event.type, output.event.data).catch(fail);
      return;
    case 'cost':
      if (output.amount > 0)
        recorder
          .apply('CostsIncremented', { runId, codonId, amount: output.amount, source: 'agent' })
          .catch(fail);
      return;
    case 'messageCount':
      recorder
        .apply('AssistantMessageCountUpdated', { runId, codonId, count: spentBefore.messages + output.count })
        .catch(fail);
      return;
    case 'session':
      session(output.agentSessionId);
      return;
    case 'result':
      if (output.finalCost !== undefined)
        recorder
          .apply('CostsUpdated', { runId, codonId, cost: spentBefore.cost + output.finalCost })
          .catch(fail);
      return;
  }
}

/**
 * Runs the codon's verification gates for one round (src/engine/verify), each gate's pid kept on
 * disk while it runs (a restarted server ends what a crash left), its events published.
 */
export function gateRunner(
  o: LifecycleOptions,
  codon: RuntimeCodon,
  wrap?: CommandWrap,
): (round: number, signal: AbortSignal) => Promise<GatesOutcome> {
  const pids = new AgentPidsFile(o.agentStateDir, (error, file) =>
    o.logger.warn({ err: error, codonId: codon.id }, `could not record a gate's pid in ${file}`),
  );
  const fail = (error: unknown) => o.logger.error({ err: error }, 'recording a gate event failed');
  return (round, signal) =>
    runGates({
      codonId: codon.id,
      gates: codon.verify,
      agentRoot: o.agentRoot,
      env: codon.env,
      keyVars: o.provider(codon).keyVars ?? [],
      round,
      signal,
      publish: (type, data) => o.recorder.publish(type, data).catch(fail),
      ...(wrap ? { wrap } : {}),
      onProcess: (pid, running, mark) =>
        running
          ? pids.add({ pid, codonId: codon.id, startedAt: new Date().toISOString(), kind: 'gate', mark })
          : pids.remove(pid),
    });
}
