import { ticketProtocols } from '../protocol/ticket-protocols.ts';
import { type OpenSocket, RefusedUpgradeError, type SocketPort } from './socket.ts';

/** Why a browser's upgrade may fail that it cannot tell: the server refused it for want of a token. */
export const TOKEN_HINT = '(a server bound beyond loopback needs an access token: ribosome web --token)';

/**
 * The client's socket in a browser: the global WebSocket. A browser hides why an upgrade failed
 * (no status, no body), so a refusal reads as a close before open.
 */
export const openBrowserSocket: OpenSocket = (url, options) =>
  new Promise<SocketPort>((resolve, reject) => {
    const ws = options.ticket ? new WebSocket(url, ticketProtocols(options.ticket)) : new WebSocket(url);
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error(`could not connect to ${url} within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const failed = () => {
      clearTimeout(timer);
      reject(new RefusedUpgradeError(`could not open a WebSocket to ${url} ${TOKEN_HINT}`, 0));
    };
    ws.addEventListener('error', failed, { once: true });
    ws.addEventListener(
      'open',
      () => {
        clearTimeout(timer);
        ws.removeEventListener('error', failed);
        resolve(browserPort(ws));
      },
      { once: true },
    );
  });

function browserPort(ws: WebSocket): SocketPort {
  return {
    get isOpen() {
      return ws.readyState === WebSocket.OPEN;
    },
    send: (frame) => ws.send(frame),
    onMessage: (listener) =>
      ws.addEventListener('message', (m: MessageEvent) =>
        typeof m.data === 'string' ? listener(m.data, false) : listener('', true),
      ),
    onClose: (listener) => ws.addEventListener('close', () => listener(), { once: true }),
    close: (code, reason) =>
      ws.readyState === WebSocket.CLOSED
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            ws.addEventListener('close', () => resolve(), { once: true });
            ws.close(code, reason);
            setTimeout(resolve, 2_000);
          }),
  };
}
