import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the test upstream saw it, body as raw bytes. */
export type Received = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
};

export type UpstreamHandler = (
  received: Received,
  response: http.ServerResponse,
  request: http.IncomingMessage,
) => void | Promise<void>;

export type TestUpstream = {
  url: string;
  port: number;
  received: Received[];
  /** Replace how the upstream answers (default: echo the body back with a few headers). */
  handle(handler: UpstreamHandler): void;
  close(): Promise<void>;
};

/** Echoes method, url and body: the status and body come back to the test through the proxy. */
export const echo: UpstreamHandler = (received, response) => {
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'x-echo-method': received.method,
    'x-echo-url': received.url,
    'content-length': received.body.length,
  });
  response.end(received.body);
};

/** An upstream HTTP server on 127.0.0.1, port 0, recording every request. */
export async function startUpstream(): Promise<TestUpstream> {
  const received: Received[] = [];
  let handler: UpstreamHandler = echo;
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const entry: Received = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      rawHeaders: request.rawHeaders,
      body: Buffer.concat(chunks),
    };
    received.push(entry);
    await handler(entry, response, request);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A loopback port that was free a moment ago (for things that must not answer). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
