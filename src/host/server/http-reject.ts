import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS, HEAD',
  'access-control-allow-headers': '*',
  'access-control-max-age': '600',
};

/**
 * Any plain HTTP request (spec 4.1) gets 400 and a JSON body that points to the WebSocket endpoint.
 * Built once per server: this path must stay cheap and never touch execution.
 */
export function createHttpRejecter(websocketUrl: () => string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    // Drain any request body so the connection can be reused, without reading it into memory.
    req.resume();
    const body = JSON.stringify({
      error: 'websocket_required',
      message: `This is the Ribosome control endpoint; it speaks WebSocket only. Connect to ${websocketUrl()} and send a handshake.`,
      websocket: websocketUrl(),
      protocol: 'execution-control-protocol',
    });
    res.writeHead(400, {
      ...CORS_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/** Answers a refused WebSocket upgrade with an HTTP status and a JSON body, then closes the socket. */
export function refuseUpgrade(socket: Socket, status: string, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  // Once the answer is out the socket goes, whether or not the peer ever closes its side.
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
