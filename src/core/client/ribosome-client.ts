import { ClientCore, type ClientOptions } from './client-core.ts';
import { type NodeSocketPort, openNodeSocket } from './node-socket.ts';
import { schemaFrames } from './parse-frame.ts';

export * from './client-core.ts';
export { RefusedUpgradeError } from './socket.ts';

/** The typed client in Node (the `ws` package); see ClientCore for what it does. */
export class RibosomeClient extends ClientCore {
  private constructor(url: string, options: ClientOptions) {
    super(url, options, openNodeSocket, schemaFrames);
  }

  static async connect(url: string, options: ClientOptions): Promise<RibosomeClient> {
    const client = new RibosomeClient(url, options);
    await client.start();
    return client;
  }

  /** Sends any frame as is (for testing servers with bad input). */
  sendRaw(frame: string | Buffer, binary = false): void {
    (this.socket as NodeSocketPort | undefined)?.sendRaw(frame, binary);
  }
}
