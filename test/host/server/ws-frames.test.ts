import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { textFrames } from '../../../src/host/server/ws-frames.ts';

// ws's frame parser (exported, though not in its type declarations).
const { Receiver } = createRequire(import.meta.url)('ws') as {
  Receiver: new (options: { isServer: boolean; skipUTF8Validation: boolean }) => Writable;
};

/** What a WebSocket client makes of the bytes: ws's own parser, as a client (frames unmasked). */
function receive(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const messages: string[] = [];
    const receiver = new Receiver({ isServer: false, skipUTF8Validation: false });
    receiver.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) reject(new Error('binary frame'));
      messages.push(data.toString());
    });
    receiver.on('error', reject);
    receiver.write(bytes, () => resolve(messages));
  });
}

describe('textFrames', () => {
  it('frames each payload as a whole text message, at every length encoding, in order', async () => {
    const payloads = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000].map((n) => 'x'.repeat(n));
    payloads.push(JSON.stringify({ message: 'héllo ✓ 🧬' }));
    const bytes = textFrames(payloads.map((p) => Buffer.from(p)));
    expect(await receive(bytes)).toEqual(payloads);
    expect(await receive(textFrames([]))).toEqual([]);
  });
});
