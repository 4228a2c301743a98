import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { admitMcpRequest, MCP_PATH, type McpAccess } from './http-admission.ts';

/** The largest request body taken (a tool call's arguments are small). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * MCP sessions at once (each holds an MCP server and its transport). Many clients never end theirs
 * (DELETE): at the limit, the one unused longest goes if it has been idle `IDLE_SESSION_MS`, else a new
 * one gets 503.
 */
const MAX_SESSIONS = 64;
const IDLE_SESSION_MS = 10 * 60_000;

export type McpHttpOptions = {
  host: string;
  port: number;
  access: McpAccess;
  /** A new MCP server for each session (one takes one transport). */
  makeServer: () => McpServer;
};

export type McpHttp = { url: string; stop(): Promise<void> };

type Session = { transport: StreamableHTTPServerTransport; server: McpServer; usedAt: number };

/**
 * `ribosome mcp --http`: MCP's streamable HTTP transport on node:http, at /mcp, one session per
 * client (its `Mcp-Session-Id`). Each request is admitted first (admitMcpRequest: origin, token, host).
 */
export async function startMcpHttp(options: McpHttpOptions): Promise<McpHttp> {
  const sessions = new Map<string, Session>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: 'internal_error', message: (error as Error).message });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const admission = admitMcpRequest(
      {
        url: req.url,
        origin: req.headers.origin,
        host: req.headers.host,
        authorization: req.headers.authorization,
      },
      options.access,
    );
    if (!admission.ok) {
      const headers: Record<string, string> =
        admission.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="ribosome"' } : {};
      return reply(res, admission.status, { error: admission.error, message: admission.message }, headers);
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) return rpcError(res, 404, 'Session not found: initialize a new session');
      session.usedAt = Date.now();
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return rpcError(res, 400, 'No session: send initialize first (POST)');
    const body = await readJson(req);
    if (!body.ok) return rpcError(res, body.status, body.message);
    if (!isInitializeRequest(body.value)) return rpcError(res, 400, 'No session: send initialize first');
    if (sessions.size >= MAX_SESSIONS && !(await dropIdleSession()))
      return rpcError(res, 503, `this MCP server already has ${MAX_SESSIONS} sessions; close one first`);
    const mcp = options.makeServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server: mcp, usedAt: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  /** Ends the session unused longest when it has been idle long enough; whether it did. */
  async function dropIdleSession(): Promise<boolean> {
    const [id, oldest] = [...sessions].reduce((a, b) => (b[1].usedAt < a[1].usedAt ? b : a));
    if (Date.now() - oldest.usedAt < IDLE_SESSION_MS) return false;
    sessions.delete(id);
    await oldest.server.close().catch(() => {});
    return true;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    stop: async () => {
      for (const session of [...sessions.values()]) await session.server.close().catch(() => {});
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A JSON-RPC error without an id, as MCP clients read a refused request. */
function rpcError(res: ServerResponse, status: number, message: string): void {
  reply(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

async function readJson(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      return { ok: false, status: 413, message: `the request is over ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'the request body is not JSON' };
  }
}
