import { z } from 'zod';
import { ENV_NAME_PATTERN, issueParams, MCP_SERVER_NAME_PATTERN } from './primitives.ts';

export { MCP_SERVER_NAME_PATTERN };

/**
 * MCP servers a codon's agent gets (docs/mcp.md): the plan's, with the codon's entries over them by
 * name. Each is a stdio server Ribosome's agent starts (`command`) or a remote one it connects to
 * (`url`, streamable HTTP). Secret values are never written in the plan: `envFrom` and `headersFrom`
 * name the server's environment variables that hold them, read as the agent starts.
 */

export const McpServerName = z
  .string()
  .regex(MCP_SERVER_NAME_PATTERN)
  .describe(
    'Letters, digits, "-" and "_" (never "__"), starting with a letter or digit, at most 40: agents name its tools after it.',
  );

const EnvName = z.string().regex(ENV_NAME_PATTERN);

/** A header name as HTTP takes it (RFC 9110 token). */
const HeaderName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "a header name is letters, digits and !#$%&'*+.^_`|~-");

export const McpEnvFrom = z
  .union([EnvName, z.array(EnvName).min(1), z.record(EnvName, EnvName)])
  .describe(
    "Secrets for the server's environment, read from the Ribosome server's environment as the agent starts, never written anywhere: a variable name (passed under its own name), a list of names, or { NAME_FOR_THE_SERVER: SERVER_VARIABLE }.",
  );
export type McpEnvFrom = z.infer<typeof McpEnvFrom>;

export const McpStdioServer = z
  .strictObject({
    command: z.string().min(1).describe('The program, found on PATH unless a path is given.'),
    args: z.array(z.string()).optional().describe('Its arguments.'),
    env: z
      .record(EnvName, z.string())
      .optional()
      .describe('Environment variables for it, written as they are: no secrets here (use envFrom).'),
    envFrom: McpEnvFrom.optional(),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe('Its working directory: relative to the agent root (default the agent root), or absolute.'),
  })
  .describe('An MCP server the agent starts, speaking over its stdin and stdout.')
  .meta({ id: 'McpStdioServer' });
export type McpStdioServer = z.infer<typeof McpStdioServer>;

export const McpRemoteServer = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .superRefine((text, ctx) => {
        const problem = remoteUrlProblem(text);
        if (problem === undefined) return;
        ctx.addIssue({
          code: 'custom',
          message: `The MCP server URL ${problem}.`,
          ...issueParams(
            'INVALID_VALUE',
            "Write an http or https URL without a user or password, e.g. http://127.0.0.1:8931/mcp; put a token in an environment variable of Ribosome's and name it in bearerTokenFrom (a bearer token) or headersFrom (any header).",
          ),
        });
      })
      .describe('Its streamable HTTP endpoint, e.g. https://mcp.example.com/mcp.'),
    headers: z
      .record(HeaderName, z.string())
      .optional()
      .describe('Headers sent with every request, written as they are: no secrets here (use headersFrom).'),
    headersFrom: z
      .record(HeaderName, EnvName)
      .optional()
      .describe(
        "Headers whose values are read from the Ribosome server's environment variables, never written anywhere: { Header-Name: VARIABLE }.",
      ),
    bearerTokenFrom: EnvName.optional().describe(
      "The variable of the Ribosome server's environment holding a bearer token: sent as `Authorization: Bearer <value>`.",
    ),
  })
  .describe('A remote MCP server the agent connects to over streamable HTTP.')
  .meta({ id: 'McpRemoteServer' });
export type McpRemoteServer = z.infer<typeof McpRemoteServer>;

export const McpServer = z
  .union([McpStdioServer, McpRemoteServer])
  .describe(
    'A stdio server ({command, args, env, envFrom, cwd}) or a remote one ({url, headers, headersFrom}).',
  );
export type McpServer = z.infer<typeof McpServer>;

export const McpServers = z
  .record(McpServerName, McpServer)
  .describe("MCP servers for every codon's agent, by name (docs/mcp.md).");

export const CodonMcpServers = z
  .record(McpServerName, McpServer.nullable())
  .describe(
    "MCP servers of this codon's agent, by name: an entry adds a server or replaces the plan's of that name; null removes the plan's.",
  );

/** Why `text` is not a remote server's URL, or undefined when it is one. */
function remoteUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `is not a URL: ${JSON.stringify(text.slice(0, 80))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be http or https, not ${url.protocol}`;
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  return undefined;
}

/** `envFrom` as { name in the server's environment: Ribosome's variable }. Pure. */
export function envFromPairs(envFrom: McpEnvFrom | undefined): Record<string, string> {
  if (envFrom === undefined) return {};
  if (typeof envFrom === 'string') return { [envFrom]: envFrom };
  if (Array.isArray(envFrom)) return Object.fromEntries(envFrom.map((name) => [name, name]));
  return { ...envFrom };
}

/** The variables of Ribosome's environment a server's secrets come from. Pure. */
export function secretVarsOf(server: McpServer): string[] {
  if ('command' in server) return [...new Set(Object.values(envFromPairs(server.envFrom)))];
  const names = [...Object.values(server.headersFrom ?? {})];
  if (server.bearerTokenFrom) names.push(server.bearerTokenFrom);
  return [...new Set(names)];
}

/** The plan's servers with a codon's over them by name (null removes one). Pure. */
export function mergeMcpServers(
  plan: Record<string, McpServer> | undefined,
  codon: Record<string, McpServer | null> | undefined,
): Record<string, McpServer> {
  const merged: Record<string, McpServer> = { ...plan };
  for (const [name, server] of Object.entries(codon ?? {})) {
    if (server === null) delete merged[name];
    else merged[name] = server;
  }
  return merged;
}
