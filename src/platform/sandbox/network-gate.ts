import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopbackHost } from '../http/loopback.ts';
import { parseTarget, type Target } from '../http/target.ts';
import { decideConnect, decideRequest } from './gate-rules.ts';
import type { SandboxDenial } from './launch.ts';

export type NetworkGate = { socket: string; port: number; close(): Promise<void> };

/** The in-sandbox port of a route that is not a loopback http URL. */
export const GATE_PORT = 3128;

/** Headers of one hop, never passed on (RFC 9110 §7.6.1), plus what a proxy client sends the proxy. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (!HOP_HEADERS.has(name) && !listed.includes(name) && value !== undefined) kept[name] = value;
  return kept;
}

/** The port the sandbox sees the route on: its own for a loopback http URL, else GATE_PORT. */
export function gatePort(route: Target): number {
  return route.protocol === 'http:' && isLoopbackHost(route.hostname) ? route.port : GATE_PORT;
}

/**
 * Starts the host side of a sandbox's network (docs/agents.md#the-sandbox): an HTTP proxy on a new
 * Unix socket in a private directory, which the sandbox's socat reaches as 127.0.0.1:`port`. It
 * passes the agent's LLM route (`route`, as the agent calls it) and the hosts of `allow`; it answers
 * anything else 403, saying why, and reports it to `onDenied`. Responses stream as they come (SSE).
 */
export async function startNetworkGate(options: {
  route: string;
  allow: readonly string[];
  onDenied(denial: SandboxDenial): void;
}): Promise<NetworkGate> {
  const parsed = parseTarget(options.route);
  if (!parsed.ok) throw new Error(`the sandbox's LLM route ${parsed.message}`);
  const route = parsed.value;
  const dir = mkdtempSync(join(tmpdir(), 'rsb-'));
  const socket = join(dir, 'net.sock');
  const sockets = new Set<Socket>();
  const agents = [new http.Agent({ keepAlive: true }), new https.Agent({ keepAlive: true })] as const;
  const track = (s: Socket) => {
    // A keep-alive socket carries many requests: one listener for its whole life.
    if (sockets.has(s)) return;
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const report = (denial: SandboxDenial) => {
    try {
      options.onDenied(denial);
    } catch {
      // A listener's failure is not the agent's answer.
    }
  };

  const server = http.createServer((req, res) => {
    const verdict = decideRequest(route, options.allow, { method: req.method ?? 'GET', url: req.url ?? '/' });
    if (verdict.kind === 'deny') {
      report(verdict.denial);
      refuse(res, verdict.denial);
    } else if (verdict.kind === 'route')
      forward(req, res, route.protocol, { host: route.hostname, port: route.port }, verdict.path, route.host);
    else if (verdict.kind === 'forward')
      forward(req, res, verdict.protocol, verdict.to, verdict.path, new URL(req.url ?? '/').host);
  });
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const verdict = decideConnect(route, options.allow, req.url ?? '');
    if (verdict.kind === 'inner') {
      // The client speaks plain HTTP to the route inside the tunnel: this server reads it.
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) client.unshift(head);
      server.emit('connection', client);
      return;
    }
    if (verdict.kind !== 'tunnel') {
      if (verdict.kind === 'deny') report(verdict.denial);
      const body = verdict.kind === 'deny' ? refusal(verdict.denial) : 'refused\n';
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = connect(verdict.to.port, verdict.to.host);
    track(upstream);
    let open = false;
    upstream.once('connect', () => {
      open = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error) => {
      if (open) client.destroy();
      else client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${error.message}\n`);
    });
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });

  /** Passes one request on and streams its response back. */
  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    protocol: 'http:' | 'https:',
    to: { host: string; port: number },
    path: string,
    hostHeader: string,
  ): void {
    const send = protocol === 'https:' ? https.request : http.request;
    const upstream = send({
      host: to.host,
      port: to.port,
      method: req.method,
      path,
      headers: { ...endToEnd(req.headers), host: hostHeader },
      agent: protocol === 'https:' ? agents[1] : agents[0],
    });
    upstream.on('socket', track);
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      res.flushHeaders();
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    // Unreachable looks unreachable: the connection drops, as it would without the sandbox, rather
    // than a 502 an agent would take for a provider's answer and retry as one.
    upstream.on('error', () => req.socket.destroy());
    req.once('error', () => upstream.destroy());
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    socket,
    port: gatePort(route),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        for (const agent of agents) agent.destroy();
      }).finally(() => rmSync(dir, { recursive: true, force: true }));
      return closing;
    },
  };
}

function refusal(denial: SandboxDenial): string {
  const what =
    denial.kind === 'connect'
      ? `CONNECT ${denial.target}`
      : `${denial.method} ${denial.target}${denial.path ?? ''}`;
  return `Refused by the Ribosome sandbox: ${what}: ${denial.reason}\n`;
}

function refuse(res: ServerResponse, denial: SandboxDenial): void {
  const body = refusal(denial);
  res.writeHead(403, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
