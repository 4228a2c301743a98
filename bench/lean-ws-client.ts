/**
 * A minimal WebSocket client for benchmarks: one TCP socket, the upgrade, and a frame parser that
 * only counts text frames (and hands the payload of sampled ones over). Hundreds of these in one
 * process cost far less than full clients, so a benchmark measures the server, not its clients.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export type LeanClient = { socket: Socket; close(): void };

/** A client-to-server text frame (masked, as clients must send), up to 125 bytes. */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('lean client frames are small');
  const mask = randomBytes(4);
  const frame = Buffer.alloc(6 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length;
  mask.copy(frame, 2);
  for (let i = 0; i < payload.length; i++) frame[6 + i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return frame;
}

/**
 * Connects, optionally sends `hello` as the first frame, skips `skipFrames` frames (the handshake
 * answers), then calls `onFrame(payload?)` for each text frame; the payload only when `wantPayload`.
 */
export function leanClient(
  port: number,
  options: {
    /** Frames sent once upgraded, in order (the handshake, then perhaps a command). */
    hello?: string | readonly string[];
    skipFrames?: number;
    wantPayload: boolean;
    onFrame: (payload?: Buffer) => void;
  },
): Promise<LeanClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let upgraded = false;
    let buffer: Buffer = Buffer.alloc(0);
    // Chunks of a frame not complete yet, joined once it is (big frames arrive in many chunks).
    let parts: Buffer[] = [];
    let partsLength = 0;
    let needed = 0;
    let skip = options.skipFrames ?? 0;
    let ready = false;
    const done = () => {
      if (ready) return;
      ready = true;
      resolve({ socket, close: () => socket.destroy() });
    };
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      if (partsLength + chunk.length < needed) {
        parts.push(chunk);
        partsLength += chunk.length;
        return;
      }
      buffer = partsLength === 0 ? chunk : Buffer.concat([...parts, chunk]);
      parts = [];
      partsLength = 0;
      needed = 0;
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          parts = [buffer];
          partsLength = buffer.length;
          return;
        }
        if (!buffer.subarray(0, 12).toString().includes('101')) return reject(new Error('upgrade refused'));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        for (const hello of [options.hello ?? []].flat()) socket.write(maskedTextFrame(hello));
        if (skip === 0) done();
      }
      let offset = 0;
      while (buffer.length - offset >= 2) {
        const opcode = (buffer[offset] ?? 0) & 0x0f;
        let length = (buffer[offset + 1] ?? 0) & 0x7f;
        let header = 2;
        if (length === 126) {
          if (buffer.length - offset < 4) break;
          length = buffer.readUInt16BE(offset + 2);
          header = 4;
        } else if (length === 127) {
          if (buffer.length - offset < 10) break;
          length = Number(buffer.readBigUInt64BE(offset + 2));
          header = 10;
        }
        if (buffer.length - offset < header + length) {
          needed = header + length;
          break;
        }
        if (opcode === 0x1) {
          if (skip > 0) {
            skip--;
            if (skip === 0) done();
          } else {
            options.onFrame(
              options.wantPayload ? buffer.subarray(offset + header, offset + header + length) : undefined,
            );
          }
        } else if (opcode === 0x9) {
          // Answer pings so the server's heartbeat keeps us.
          socket.write(Buffer.from([0x8a, 0x80, 0, 0, 0, 0]));
        }
        offset += header + length;
      }
      if (offset < buffer.length) {
        parts = [buffer.subarray(offset)];
        partsLength = buffer.length - offset;
      }
      if (needed === 0) needed = 1;
    });
  });
}
