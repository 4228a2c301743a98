import { WebSocket } from 'ws';
import { ticketProtocols } from '../protocol/dashboard-ticket.ts';
import { type OpenSocket, RefusedUpgradeError, type SocketPort } from './socket.ts';

/** The client's socket in Node: the `ws` package, which also reads the body of a refused upgrade. */
export const openNodeSocket: OpenSocket = (url, options) =>
  new Promise<SocketPort>((resolve, reject) => {
    const ws = new WebSocket(url, options.ticket ? ticketProtocols(options.ticket) : [], {
      ...(options.origin ? { origin: options.origin } : {}),
      ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}),
      handshakeTimeout: options.timeoutMs,
      perMessageDeflate: false,
    });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`could not connect to ${url} within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    ws.once('error', onError);
    ws.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      // The server says why in a short body (503: too many clients); at most 4 KiB of it is read.
      let body = '';
      let refused = false;
      const refuse = () => {
        if (refused) return;
        refused = true;
        const why = refusalReason(body);
        reject(
          new RefusedUpgradeError(
            `server refused the WebSocket upgrade with HTTP ${res.statusCode}${why ? `: ${why}` : ''}`,
            res.statusCode ?? 0,
          ),
        );
        ws.terminate();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 4_096) res.destroy();
      });
      res.once('end', refuse);
      res.once('close', refuse);
      res.once('error', refuse);
    });
    ws.once('open', () => {
      clearTimeout(timer);
      ws.off('error', onError);
      ws.on('error', () => {
        // Reported through 'close'; a listener must exist so errors never crash the process.
      });
      resolve(nodePort(ws));
    });
  });

/** The open `ws` socket as a SocketPort, plus raw sends for tests of hostile input. */
export type NodeSocketPort = SocketPort & { sendRaw(frame: string | Buffer, binary: boolean): void };

function nodePort(ws: WebSocket): NodeSocketPort {
  return {
    get isOpen() {
      return ws.readyState === WebSocket.OPEN;
    },
    send: (frame) => ws.send(frame),
    sendRaw: (frame, binary) => ws.send(frame, { binary }),
    onMessage: (listener) => ws.on('message', (data, isBinary) => listener(data.toString(), isBinary)),
    onClose: (listener) => ws.on('close', () => listener()),
    close: (code, reason) =>
      ws.readyState === WebSocket.CLOSED
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            ws.close(code, reason);
            setTimeout(() => ws.terminate(), 2_000).unref();
          }),
  };
}

/** The `message` of a JSON refusal body, else its first line of text (cut to 200 characters). */
function refusalReason(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'message' in parsed && typeof parsed.message === 'string')
      return parsed.message.slice(0, 200);
  } catch {
    // Not JSON: plain text.
  }
  return (body.split('\n')[0] ?? '').trim().slice(0, 200);
}
