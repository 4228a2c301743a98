import { openBrowserSocket } from './browser-socket.ts';
import { ClientCore, type ClientOptions } from './client-core.ts';

export * from '../protocol/index.ts';
export * from './client-core.ts';
export { RefusedUpgradeError } from './socket.ts';

/**
 * The typed client in a browser: the same API as RibosomeClient over the global WebSocket (no
 * Node modules, so a bundler can ship it to a page). A page cannot set an Origin or headers: the
 * browser sends its own origin, and a dashboard's `ticket` is offered as a subprotocol.
 */
export class BrowserClient extends ClientCore {
  private constructor(url: string, options: Omit<ClientOptions, 'origin'>) {
    super(url, options, openBrowserSocket);
  }

  static async connect(url: string, options: Omit<ClientOptions, 'origin'>): Promise<BrowserClient> {
    const client = new BrowserClient(url, options);
    await client.start();
    return client;
  }
}
