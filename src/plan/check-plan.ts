import { closest } from '../core/validation/suggest.ts';
import { checkSentinelDefinition } from './check-sentinel.ts';
import type { Codon } from './plan-schema.ts';
import { formatPath, type PathSegment, type ProblemDraft } from './problems.ts';
import type { SalvagedCodon, SalvagedEntry, SalvagedPlan } from './salvage.ts';
import { usageLimitPolicy } from './usage-limit-schema.ts';

/**
 * Rules that span several values of a plan: unique ids, continuation, sentinel references, nesting.
 * Pure: it sees only the salvaged (valid) parts, and says nothing where a neighbour is invalid, since
 * the schema already reports that one.
 */
export function checkPlan(plan: SalvagedPlan): ProblemDraft[] {
  return [
    ...checkIds(plan),
    ...checkNestedLoops(plan),
    ...checkContinuations(plan),
    ...checkSentinelRefs(plan),
    ...checkNamedSentinels(plan),
    // Inline sentinel definitions, from their valid parts: checked even where their neighbours are not.
    ...plan.sentinelParts.flatMap(({ parts, path }) => checkSentinelDefinition(parts, path)),
    ...checkIneffective(plan),
    ...checkUserConfig(plan),
  ];
}

/** Agents whose CLI runs with the user's configuration under `agentConfig: user` (claude-code: below). */
const AGENT_CONFIG_AGENTS: ReadonlySet<string> = new Set(['codex', 'gemini', 'opencode']);

/**
 * `agentConfig: user` or `claudeConfig: user` on a plan none of whose codons runs an agent it applies
 * to: warnings. Said only when there are codons and every one's agent is known (an invalid one is
 * reported already).
 */
function checkUserConfig(plan: SalvagedPlan): ProblemDraft[] {
  if (plan.agentConfig !== 'user' && plan.claudeConfig !== 'user') return [];
  const agents = new Set<string>();
  for (const entry of declaredCodons(plan)) {
    const found = valid(entry);
    const agent = found && !found.dropped.includes('agent') ? (found.codon.agent ?? plan.agent) : undefined;
    if (agent === undefined) return [];
    agents.add(agent);
  }
  if (agents.size === 0) return [];
  const runs = (names: string[]) => names.some((name) => agents.has(name));
  const drafts: ProblemDraft[] = [];
  // Claude Code takes agentConfig when the plan has no claudeConfig.
  const agentConfigAgents = [...AGENT_CONFIG_AGENTS, ...(plan.claudeConfig ? [] : ['claude-code'])];
  if (plan.agentConfig === 'user' && !runs(agentConfigAgents)) {
    drafts.push({
      code: 'FIELD_HAS_NO_EFFECT',
      severity: 'warning',
      path: ['agentConfig'],
      message: `agentConfig: user has no effect: no codon runs ${agentConfigAgents.join(', ').replace(/, (?=[^,]*$)/, ' or ')}.`,
      hint: "It says whose configuration those agents' CLIs run with (the built-in agent has none); remove it, or give a codon such an agent.",
    });
  }
  if (plan.claudeConfig === 'user' && !agents.has('claude-code')) {
    drafts.push({
      code: 'FIELD_HAS_NO_EFFECT',
      severity: 'warning',
      path: ['claudeConfig'],
      message: 'claudeConfig: user has no effect: no codon runs claude-code.',
      hint: 'It says whose Claude Code configuration claude-code codons run with; remove it, or give a codon `agent: claude-code`.',
    });
  }
  return drafts;
}

/** Fields that are valid but do nothing as written: warnings (the plan runs), so a typo is not silent. */
function checkIneffective(plan: SalvagedPlan): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  for (const entry of declaredCodons(plan)) {
    const found = valid(entry);
    if (!found) continue;
    const { codon, path } = found;
    if (
      codon.onVerifyFailure !== undefined &&
      codon.verify === undefined &&
      !found.dropped.includes('verify')
    ) {
      drafts.push({
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: [...path, 'onVerifyFailure'],
        message: `Codon "${codon.id}" has onVerifyFailure but no verify gates: it never applies.`,
        hint: 'Add `verify: [{ run: <command> }]`, or remove onVerifyFailure.',
      });
    }
    const model = codon.model ?? plan.model;
    const fallback = codon.fallbackModel ?? plan.fallbackModel;
    if (fallback !== undefined && fallback === model) {
      drafts.push({
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: [...path, codon.fallbackModel !== undefined ? 'fallbackModel' : 'id'],
        message: `Codon "${codon.id}" falls back to the model it already uses (${model}).`,
        hint: 'Name another model as fallbackModel (e.g. a smaller or another provider-side one).',
      });
    }
    const own = usageLimitPolicy(codon.onUsageLimit, plan.onUsageLimit).fallbackAgent;
    const agent = codon.agent ?? plan.agent;
    if (own && agent !== undefined && own.agent === agent && (own.model ?? model) === model) {
      drafts.push({
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: [...path, codon.onUsageLimit !== undefined ? 'onUsageLimit' : 'id'],
        message: `Codon "${codon.id}"'s fallbackAgent is its own agent and model (${agent}${model ? `, ${model}` : ''}): it would meet the same usage limit.`,
        hint: 'Name another agent (or another model) as onUsageLimit.fallbackAgent, or leave it out to wait for the reset.',
      });
    }
    if (own && agent !== undefined && own.agent !== agent && own.model === undefined && model !== undefined) {
      drafts.push({
        code: 'FIELD_HAS_NO_EFFECT',
        severity: 'warning',
        path: [...path, codon.onUsageLimit !== undefined ? 'onUsageLimit' : 'id'],
        message: `Codon "${codon.id}"'s fallbackAgent ${own.agent} names no model: it would run with ${model}, the model meant for ${agent}.`,
        hint: `Give the fallbackAgent a model ${own.agent} takes: fallbackAgent: { agent: ${own.agent}, model: ... }.`,
      });
    }
  }
  return drafts;
}

/** Every codon in declaration order (a loop's codons once); an invalid loop counts as one entry. */
function declaredCodons(plan: SalvagedPlan): SalvagedEntry[] {
  return plan.items.flatMap((item) => (item.kind === 'loop' ? item.codons : [item]));
}

function valid(entry: SalvagedEntry | undefined): SalvagedCodon | undefined {
  return entry?.kind === 'codon' ? entry : undefined;
}

function checkIds(plan: SalvagedPlan): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  const firstUse = new Map<string, PathSegment[]>();
  const see = (id: string, path: PathSegment[]) => {
    const first = firstUse.get(id);
    if (first === undefined) {
      firstUse.set(id, path);
      return;
    }
    drafts.push({
      code: 'DUPLICATE_ID',
      path: [...path, 'id'],
      message: `Id "${id}" is already used by ${formatPath(first)}.`,
      hint: 'Rename one of them: codon and loop ids must be unique in the whole plan.',
    });
  };
  const seeEntry = (entry: SalvagedEntry) => {
    const id = entry.kind === 'codon' ? entry.codon.id : entry.id;
    if (id !== undefined) see(id, entry.path);
  };
  for (const item of plan.items) {
    if (item.kind !== 'loop') {
      seeEntry(item);
      continue;
    }
    const loopId = item.loop?.id ?? item.id;
    if (loopId !== undefined) see(loopId, item.path);
    item.codons.forEach(seeEntry);
  }
  return drafts;
}

function checkNestedLoops(plan: SalvagedPlan): ProblemDraft[] {
  return plan.nestedLoops.map((path) => ({
    code: 'NESTED_LOOP',
    path,
    message: 'Loops cannot be nested.',
    hint: "Move the inner loop's codons into the outer loop, or put the two loops one after the other.",
  }));
}

function checkContinuations(plan: SalvagedPlan): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  const agentOf = (codon: Codon) => codon.agent ?? plan.agent;
  const effective = (codon: Codon) => codon.continuation ?? plan.defaults?.continuation;
  const checkAgents = (current: SalvagedCodon, previous: SalvagedCodon, when: string) => {
    // A dropped (invalid) agent is already reported; guessing it here could report a false mismatch.
    if (current.dropped.includes('agent') || previous.dropped.includes('agent')) return;
    const [mine, theirs] = [agentOf(current.codon), agentOf(previous.codon)];
    if (mine === undefined || theirs === undefined || mine === theirs) return;
    const field =
      current.codon.continuation !== undefined ? 'continuation' : current.codon.agent ? 'agent' : 'id';
    drafts.push({
      code: 'CONTINUATION_AGENT_MISMATCH',
      path: [...current.path, field],
      message: `Codon "${current.codon.id}" (${mine}) continues the session of "${previous.codon.id}" (${theirs})${when}; a session cannot move between agents.`,
      hint: 'Give both codons the same agent, or set continuation: fresh.',
    });
  };

  const order = declaredCodons(plan).map(valid);
  for (const [k, current] of order.entries()) {
    if (current === undefined) continue;
    if (k === 0 && current.codon.continuation === 'continue-previous') {
      const inLoop = plan.items[0]?.kind === 'loop';
      drafts.push({
        code: 'CONTINUATION_WITHOUT_PREVIOUS',
        path: [...current.path, 'continuation'],
        message: inLoop
          ? 'The first codon of the plan is in a loop: in the first iteration it has no session to continue.'
          : 'The first codon has no previous session to continue.',
        hint: inLoop
          ? 'Put a codon before the loop, or remove continuation here and set defaults.continuation: continue-previous (the first codon of a plan always starts fresh).'
          : 'Remove continuation or set it to fresh.',
      });
      continue;
    }
    const previous = order[k - 1];
    if (k > 0 && previous !== undefined && effective(current.codon) === 'continue-previous') {
      checkAgents(current, previous, '');
    }
  }

  // From the second iteration on, a loop's first codon follows the loop's last one.
  for (const item of plan.items) {
    if (item.kind !== 'loop' || item.loop === undefined || item.loop.iterations < 2) continue;
    const first = valid(item.codons[0]);
    const last = valid(item.codons.at(-1));
    if (first === undefined || last === undefined || effective(first.codon) !== 'continue-previous') continue;
    if (first !== last) checkAgents(first, last, ' from the second iteration on');
  }
  return drafts;
}

function checkSentinelRefs(plan: SalvagedPlan): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  for (const entry of declaredCodons(plan)) {
    if (entry.kind !== 'codon') continue;
    for (const [j, ref] of (entry.codon.sentinels ?? []).entries()) {
      const path = [...entry.path, 'sentinels', j];
      if (typeof ref !== 'string') continue;
      if (plan.sentinelIds.includes(ref)) continue;
      const guess = closest(ref, plan.sentinelIds);
      drafts.push({
        code: 'UNKNOWN_SENTINEL',
        path,
        message: `No sentinel "${ref}" in the plan's sentinels map.`,
        hint:
          guess === undefined
            ? 'Declare it under `sentinels:` at the top of the plan, or attach a file with `- file: path`.'
            : `Did you mean "${guess}"?`,
      });
    }
  }
  return drafts;
}

function checkNamedSentinels(plan: SalvagedPlan): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  for (const { id, entry, path } of plan.sentinels) {
    if ('file' in entry) continue;
    if (entry.id === undefined || entry.id === id) continue;
    drafts.push({
      code: 'SENTINEL_ID_MISMATCH',
      path: [...path, 'id'],
      message: `The sentinel under key "${id}" says its id is "${entry.id}".`,
      hint: 'Remove the id (the key names the sentinel) or make them equal.',
    });
  }
  return drafts;
}
