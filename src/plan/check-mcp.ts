import { posix } from 'node:path';
import { closest } from '../core/validation/suggest.ts';
import { envFromPairs, type McpServer, mergeMcpServers } from './mcp-schema.ts';
import type { PathSegment, ProblemDraft } from './problems.ts';
import type { SalvagedCodon, SalvagedPlan } from './salvage.ts';

/**
 * What a user should hear about a plan's MCP servers (docs/mcp.md) before a run, beyond their shape:
 * - a secret variable (envFrom, headersFrom, bearerTokenFrom) not set here: a warning, since it may be
 *   set where the plan runs; checked for the servers some codon gets (a plan's server every codon
 *   replaces or removes needs nothing);
 * - a codon's `null` for a server the plan does not have: a warning (it removes nothing);
 * - a relative `cwd` that climbs out of the agent root: an error;
 * - a Gemini CLI codon with servers under `agentConfig: user`: an error (it would fail at its start);
 * - a header or variable whose name reads as a credential, written in the plan (`headers`, `env`):
 *   a warning (the plan is journaled and shared; its secrets belong in headersFrom or envFrom).
 * Pure: `env` is the environment the check is made in.
 */
export function checkMcpServers(plan: SalvagedPlan, env: NodeJS.ProcessEnv): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  const codons = codonsOf(plan);
  // The plan's entries some codon keeps (every one when there are no valid codons to ask).
  const used = new Set(
    codons.length === 0
      ? []
      : Object.keys(plan.mcpServers).filter((name) =>
          codons.some((c) => !c.dropped.includes('mcpServers') && !(name in (c.codon.mcpServers ?? {}))),
        ),
  );
  for (const [name, server] of Object.entries(plan.mcpServers)) {
    const at: PathSegment[] = ['mcpServers', name];
    drafts.push(...cwdProblems(name, server, at), ...writtenSecrets(name, server, at));
    if (used.has(name)) drafts.push(...secretProblems(name, server, at, env));
  }
  for (const { codon, path } of codons) {
    for (const [name, server] of Object.entries(codon.mcpServers ?? {})) {
      const at: PathSegment[] = [...path, 'mcpServers', name];
      if (server === null) {
        if (!plan.mcpServerNames.includes(name)) drafts.push(removesNothing(codon.id, name, at, plan));
        continue;
      }
      drafts.push(
        ...cwdProblems(name, server, at),
        ...secretProblems(name, server, at, env),
        ...writtenSecrets(name, server, at),
      );
    }
  }
  drafts.push(...geminiUserConfig(plan, codons));
  return drafts;
}

/**
 * Gemini CLI takes a codon's servers only in a configuration of its own (its user settings are never
 * written): with `agentConfig: user`, a Gemini CLI codon with servers would fail at its start.
 */
function geminiUserConfig(plan: SalvagedPlan, codons: readonly SalvagedCodon[]): ProblemDraft[] {
  if (plan.agentConfig !== 'user') return [];
  return codons
    .filter(({ codon, dropped }) => {
      if (dropped.includes('mcpServers') || (codon.agent ?? plan.agent) !== 'gemini') return false;
      return Object.keys(mergeMcpServers(plan.mcpServers, codon.mcpServers)).length > 0;
    })
    .map(({ codon, path }) => ({
      code: 'MCP_NOT_SUPPORTED',
      path: codon.mcpServers === undefined ? ['agentConfig'] : [...path, 'mcpServers'],
      message: `Codon "${codon.id}" runs Gemini CLI with agentConfig: user and has MCP servers, which Gemini CLI takes only in a configuration of its own: the codon would fail at its start.`,
      hint: 'Use agentConfig: isolated (the default), run the codon with another agent, or take its servers away (mcpServers: { NAME: null }).',
    }));
}

/** Every valid codon, a loop's once. */
function codonsOf(plan: SalvagedPlan): SalvagedCodon[] {
  return plan.items
    .flatMap((item) => (item.kind === 'loop' ? item.codons : [item]))
    .filter((entry): entry is SalvagedCodon => entry.kind === 'codon');
}

function cwdProblems(name: string, server: McpServer, at: PathSegment[]): ProblemDraft[] {
  if (!('command' in server) || server.cwd === undefined || posix.isAbsolute(server.cwd)) return [];
  const normal = posix.normalize(server.cwd);
  if (normal !== '..' && !normal.startsWith('../')) return [];
  return [
    {
      code: 'PATH_ESCAPES',
      path: [...at, 'cwd'],
      message: `MCP server "${name}"'s cwd ${server.cwd} climbs out of the agent root.`,
      hint: 'Write a path inside the agent root (relative to it, without climbing out), or an absolute path.',
    },
  ];
}

/** A name that reads as a credential's: Authorization, X-Api-Key, GITHUB_TOKEN, DB_PASSWORD, Cookie... */
const CREDENTIAL_NAME =
  /(^|[-_])(authorization|api[-_]?key|token|secret|password|passwd|cookie|credentials?)($|[-_])|^(x-)?api[-_]?key$/i;

/** Headers (remote) and variables (stdio) written in the plan under a credential's name. */
function writtenSecrets(name: string, server: McpServer, at: PathSegment[]): ProblemDraft[] {
  const [field, fromField, written] =
    'command' in server
      ? (['env', 'envFrom', Object.keys(server.env ?? {})] as const)
      : (['headers', 'headersFrom', Object.keys(server.headers ?? {})] as const);
  return written
    .filter((key) => CREDENTIAL_NAME.test(key))
    .map((key) => ({
      code: 'MCP_SECRET_IN_PLAN',
      severity: 'warning',
      path: [...at, field, key],
      message: `MCP server "${name}"'s ${field === 'env' ? 'variable' : 'header'} ${key} reads as a credential, and its value is written in the plan.`,
      hint: `Put the value in an environment variable of Ribosome's and name it in ${fromField} (${fromField === 'envFrom' ? `envFrom: { ${key}: MY_VARIABLE }` : `headersFrom: { ${key}: MY_VARIABLE }`}${fromField === 'headersFrom' ? ', or bearerTokenFrom: MY_VARIABLE for a bearer token' : ''}): a plan is journaled and shared, a secret in it is not one.`,
    }));
}

/** Each secret variable of `server` unset in `env`, where it is written. */
function secretProblems(
  name: string,
  server: McpServer,
  at: PathSegment[],
  env: NodeJS.ProcessEnv,
): ProblemDraft[] {
  const places: Array<{ variable: string; field: string; path: PathSegment[] }> = [];
  if ('command' in server) {
    const { envFrom } = server;
    if (typeof envFrom === 'string')
      places.push({ variable: envFrom, field: 'envFrom', path: [...at, 'envFrom'] });
    else if (Array.isArray(envFrom)) {
      for (const [i, variable] of envFrom.entries())
        places.push({ variable, field: 'envFrom', path: [...at, 'envFrom', i] });
    } else
      for (const [target, variable] of Object.entries(envFromPairs(envFrom)))
        places.push({ variable, field: 'envFrom', path: [...at, 'envFrom', target] });
  } else {
    for (const [header, variable] of Object.entries(server.headersFrom ?? {}))
      places.push({ variable, field: 'headersFrom', path: [...at, 'headersFrom', header] });
    if (server.bearerTokenFrom)
      places.push({
        variable: server.bearerTokenFrom,
        field: 'bearerTokenFrom',
        path: [...at, 'bearerTokenFrom'],
      });
  }
  return places
    .filter(({ variable }) => !env[variable])
    .map(({ variable, field, path }) => ({
      code: 'MCP_SECRET_UNSET',
      severity: 'warning',
      path,
      message: `MCP server "${name}" takes ${variable} as a secret (${field}), and ${variable} is not set here.`,
      hint: `Set ${variable} in the environment \`ribosome run\` starts in (it may be set where the plan runs): a codon whose server's secret is unset fails at its start.`,
    }));
}

function removesNothing(codonId: string, name: string, at: PathSegment[], plan: SalvagedPlan): ProblemDraft {
  const guess = closest(name, plan.mcpServerNames);
  return {
    code: 'FIELD_HAS_NO_EFFECT',
    severity: 'warning',
    path: at,
    message: `Codon "${codonId}" removes MCP server "${name}", which the plan does not have.`,
    hint:
      guess !== undefined
        ? `Did you mean "${guess}"?`
        : plan.mcpServerNames.length > 0
          ? `The plan's MCP servers: ${plan.mcpServerNames.join(', ')}; remove this entry, or name one of them.`
          : 'The plan has no mcpServers: remove this entry.',
  };
}
