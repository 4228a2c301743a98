import { openBrowserSocket } from './browser-socket.ts';
import { ClientCore, type ClientOptions } from './client-core.ts';
import { envelopeFrames } from './envelope-frame.ts';

export * from './client-core.ts';
export { RefusedUpgradeError } from './socket.ts';

/** How many refused frames a page logs to its console (each is counted in invalidFrameCount). */
const LOGGED_REFUSALS = 20;

/**
 * The typed client in a browser: the same API as RibosomeClient over the global WebSocket (no
 * Node modules, no zod, so a bundler can ship it to a page small). A page cannot set an Origin or
 * headers: the browser sends its own origin, and a dashboard's `ticket` is offered as a
 * subprotocol. It trusts the data of the server's events and checks their envelope by hand
 * (envelope-frame.ts): a frame that fails is refused, logged to the console, never handed on.
 */
export class BrowserClient extends ClientCore {
  private constructor(url: string, options: Omit<ClientOptions, 'origin'>) {
    super(url, options, openBrowserSocket, envelopeFrames);
  }

  static async connect(url: string, options: Omit<ClientOptions, 'origin'>): Promise<BrowserClient> {
    const client = new BrowserClient(url, options);
    await client.start();
    return client;
  }

  protected override refused(why: string, count: number): void {
    if (count <= LOGGED_REFUSALS) console.error(`ribosome: refused a frame from ${this.url}: ${why}`);
    if (count === LOGGED_REFUSALS)
      console.error(`ribosome: further refused frames are counted (invalidFrameCount), not logged`);
  }
}
