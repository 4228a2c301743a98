import { decideUpgrade } from '../../host/server/origin.ts';
import { isLoopbackHost } from '../../platform/http/loopback.ts';
import { checkToken } from '../../platform/http/token.ts';

/** Where the MCP endpoint is (the path MCP clients are given). */
export const MCP_PATH = '/mcp';

export type McpRequestFacts = {
  /** The request target (path and query). */
  url: string | undefined;
  origin: string | undefined;
  host: string | undefined;
  authorization: string | undefined;
};

export type McpAccess = {
  /** The access token; undefined: none asked (a loopback bind without one). */
  token: string | undefined;
  /** `--allow-origin`: browser origins allowed besides none (`*` = any). */
  allowOrigins: readonly string[];
};

export type McpAdmission =
  | { ok: true }
  | { ok: false; status: 401 | 403 | 404; error: string; message: string };

/**
 * Whether an HTTP request may reach the MCP endpoint, as the control server admits a WebSocket
 * (decideUpgrade): a page of another origin is refused (cross-site requests, DNS rebinding), the token
 * when one is set is asked of everyone (`Authorization: Bearer`), and without a token only a loopback
 * name may be in the Host header (a page whose name was rebound to this address must get nothing). Pure.
 */
export function admitMcpRequest(request: McpRequestFacts, access: McpAccess): McpAdmission {
  const path = (request.url ?? '').split('?')[0];
  if (path !== MCP_PATH)
    return { ok: false, status: 404, error: 'not_found', message: `the MCP endpoint is ${MCP_PATH}` };
  const verdict = decideUpgrade({
    origin: request.origin,
    allowOrigins: access.allowOrigins,
    ticket: undefined,
    token:
      access.token === undefined
        ? 'none'
        : checkToken({ authorization: request.authorization, url: request.url }, access.token),
  });
  if (!verdict.ok) {
    const status = verdict.status.startsWith('401') ? 401 : 403;
    const message =
      verdict.error === 'token_required'
        ? 'this MCP server requires its access token: send Authorization: Bearer <token>'
        : verdict.error === 'token_wrong'
          ? 'the access token sent is not this MCP server’s'
          : `Origin ${request.origin} is not allowed (--allow-origin allows one)`;
    return { ok: false, status, error: verdict.error, message };
  }
  if (access.token === undefined && !isLoopbackHost(hostName(request.host ?? '')))
    return {
      ok: false,
      status: 403,
      error: 'host_not_allowed',
      message:
        'without an access token this MCP server answers only requests to a loopback name (localhost, 127.0.0.1, [::1])',
    };
  return { ok: true };
}

/** The name of a Host header without its port: `127.0.0.1:4711` -> `127.0.0.1`, `[::1]:80` -> `[::1]`. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':')[0] ?? '';
}
