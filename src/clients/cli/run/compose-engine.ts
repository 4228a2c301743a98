import { join } from 'node:path';
import { createOrchestrator } from '../../../engine/create-orchestrator.ts';
import { journalRedos } from '../../../engine/sentinels/actions/take-actions.ts';
import { createSentinelHooks } from '../../../engine/sentinels/sentinel-hooks.ts';
import { IntegrityError } from '../../../execution/integrity/startup-check.ts';
import { dataLinkPath } from '../../../execution/layout/data-link.ts';
import { WorkspaceError } from '../../../execution/workspace/index.ts';
import { LockHeldError, type Runtime, serverSecrets, startRuntime } from '../../../host/server/runtime.ts';
import type { ReadyExtras } from '../../../host/server/server-options.ts';
import type { SpendGate } from '../../../llm/spend/spend-gate.ts';
import { secretVarsOf } from '../../../plan/mcp-schema.ts';
import { StorageFault } from '../../../platform/storage/guard.ts';
import { planRecordOf, writePlanRecord } from '../../runs/index.ts';
import { type RunCompanions, runCompanions } from './companions.ts';
import { EXIT, type Refusal, refuse, storageNotice } from './exit.ts';
import type { RunRequest } from './parse-flags.ts';
import type { Execution } from './place-execution.ts';
import { type ProviderUrls, type ProviderWiring, providerTarget } from './providers.ts';
import { sharedLimitsStore } from './shared-limits.ts';
import { cloneInto, workspaceIncludes } from './workspace.ts';

/**
 * Starts the server on the execution: the engine (the orchestrator with its sentinels), then the
 * companions, whose URLs the engine's agents use from then on. A start that fails says why, with the
 * exit code for it.
 */
export async function composeEngine(
  request: RunRequest,
  execution: Execution,
  wiring: ProviderWiring,
): Promise<{ ok: true; runtime: Runtime<RunCompanions> } | Refusal> {
  const { plan, settings, budget } = request;
  // Every key the server holds, the plan's key variables' and its MCP servers' secrets too, never
  // reaches the journal or a log.
  const mcpVars = plan.codons.flatMap((codon) => Object.values(codon.mcpServers).flatMap(secretVarsOf));
  const secrets = serverSecrets(process.env, [...wiring.keyVars, ...new Set(mcpVars)]);
  // The engine's budgets, which the proxy (started after the engine) checks model requests against.
  const budgets: { gate?: SpendGate | undefined } = {};
  try {
    const runtime = await startRuntime<RunCompanions>({
      executionDir: execution.executionDir,
      dataDir: execution.dataDir,
      agentRootName: plan.agentRoot,
      readyExtras: (companions) => readyExtras(request, companions),
      settings,
      companions: runCompanions(request, wiring.routes, secrets, () => budgets.gate),
      token: request.access.token,
      secrets,
      createEngine: async (deps, companions) => {
        // Before the companions start, the configured provider and no proxy (as the plan says).
        const urls = (): ProviderUrls =>
          companions() ?? { providerUrl: request.proxy.providerBaseUrl, agentUrl: undefined };
        if (request.sandbox.warning) deps.logger.warn(request.sandbox.warning);
        if (execution.clone) await cloneInto(execution.clone, deps.layout, deps.logger);
        const checkpointInclude = await workspaceIncludes(deps.layout, deps.logger);
        // What `ribosome runs` and the exit summary count codons against (the database lacks the plan).
        deps.storage.write('plan record', () =>
          writePlanRecord(deps.layout.executionDir, planRecordOf(plan)),
        );
        const engine = await createOrchestrator(deps, {
          plan,
          autostart: settings.autostart,
          ...(budget ? { budget } : {}),
          claudeConfig: request.claudeConfig,
          agentConfig: request.agentConfig,
          sandbox: request.sandbox.sandboxOf,
          checkpointInclude,
          provider: (codon) =>
            providerTarget(wiring, { provider: codon.provider, kind: codon.agent }, urls(), {
              kind: 'codon',
              id: codon.id,
            }),
          outputDir: execution.outputDir,
          ...(request.approveAll ? { approveAll: true } : {}),
          ...(request.sharedLimits === undefined
            ? {}
            : {
                sharedLimits: sharedLimitsStore({
                  dir: request.sharedLimits,
                  provider: request.proxy.providerBaseUrl,
                  // As the agents get it: after the scripted provider's stand-in key was set.
                  env: { ...process.env },
                  executionDir: execution.executionDir,
                  warn: (text) => deps.logger.warn(text),
                }),
              }),
          hooks: ({ bus, logger, layout, journal }, record) =>
            createSentinelHooks({
              bus,
              logger,
              provider: (sentinel) =>
                providerTarget(wiring, { provider: sentinel.provider, kind: 'sentinel' }, urls(), {
                  kind: 'sentinel',
                  id: sentinel.id,
                }),
              outputDir: join(layout.internal, 'sentinels'),
              paths: { agentRoot: layout.agentRoot, dataDir: dataLinkPath(layout.agentRoot) },
              emitTriggered: request.sentinelTriggeredEvents,
              onCost: record.cost,
              onStates: record.states,
              engine: record.engine,
              sendMessage: record.sendMessage,
              redos: journalRedos(() => journal.ofIndexedType('sentinel.action')),
              // With the proxy on, sentinels' calls cross it, and it checks them against the budgets.
              spendGate: () => (urls().agentUrl === undefined ? record.spendGate() : undefined),
            }),
        });
        budgets.gate = engine.spendGate;
        return engine;
      },
    });
    return { ok: true, runtime };
  } catch (error) {
    if (error instanceof WorkspaceError) return refuse(error.message);
    if (error instanceof LockHeldError) return refuse(error.message, EXIT.locked);
    if (error instanceof IntegrityError) return refuse(error.message, EXIT.invalidInput);
    if (error instanceof StorageFault)
      return refuse(storageNotice(error, 'cannot start'), EXIT.storageFailed);
    return refuse((error as Error).message, EXIT.failure);
  }
}

/** What server.ready tells clients of the plan and the proxy (its URL once it listens). */
function readyExtras(request: RunRequest, companions: RunCompanions | undefined): ReadyExtras {
  const { plan, proxy, budget } = request;
  const url = companions?.proxy?.url;
  return {
    plan: {
      name: plan.name,
      codons: plan.codons.map((c) => ({
        codonId: c.id,
        codonName: c.name,
        index: c.index,
        agent: c.agent,
        ...(c.description ? { description: c.description } : {}),
      })),
    },
    proxy: { enabled: proxy.enabled, ...(url ? { url } : {}) },
    ...(budget ? { budget } : {}),
  };
}
