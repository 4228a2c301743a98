/**
 * A WebSocket client written by hand on a TCP socket, for what a well-behaved client library will
 * not do: never read (a stalled client), send frames with wrong opcodes, lengths or fragmentation,
 * or hold a connection open without upgrading it.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** Opens a TCP connection to 127.0.0.1:port. */
export function tcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

export const CLOSED_BEFORE_ANSWER = 'closed before answering the upgrade';

export type Upgraded = { socket: Socket; status: number; head: string; rest: Buffer };

/** Sends a WebSocket upgrade request (with extra header lines); resolves with the response status and the socket. */
export async function upgrade(port: number, headers: readonly string[] = []): Promise<Upgraded> {
  const socket = await tcp(port);
  socket.on('error', () => {});
  socket.write(
    [
      'GET / HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      ...headers,
      '',
      '',
    ].join('\r\n'),
  );
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      const head = buffer.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ socket, status, head, rest: buffer.subarray(end + 4) });
    };
    const onClose = () => reject(new Error(CLOSED_BEFORE_ANSWER));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/**
 * One client frame, masked as a client's must be. `length` overrides the declared payload length
 * (a lie the server must survive); `rsv` sets reserved bits.
 */
export function frame(
  payload: Buffer | string,
  options: { opcode?: number; fin?: boolean; rsv?: number; length?: number; mask?: boolean } = {},
): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const { opcode = OPCODE.text, fin = true, rsv = 0, mask = true } = options;
  const length = options.length ?? data.length;
  const head: number[] = [(fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)];
  const maskBit = mask ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (length < 126) head.push(maskBit | length);
  else if (length < 0x10000) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(length);
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(BigInt(length));
  }
  if (!mask) return Buffer.concat([Buffer.from(head), ext, data]);
  const key = randomBytes(4);
  const masked = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) masked[i] = (data[i] as number) ^ (key[i % 4] as number);
  return Buffer.concat([Buffer.from(head), ext, key, masked]);
}

/** Server frames parsed from a byte stream (unmasked, as a server sends them). */
export class FrameReader {
  #buffer = Buffer.alloc(0);
  readonly frames: Array<{ opcode: number; payload: Buffer }> = [];

  push(data: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, data]);
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      let length = (b[1] as number) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      this.frames.push({ opcode: (b[0] as number) & 0x0f, payload: b.subarray(offset, offset + length) });
      this.#buffer = b.subarray(offset + length);
    }
  }

  /** The close code of a close frame received, if any. */
  get closeCode(): number | undefined {
    const close = this.frames.find((f) => f.opcode === OPCODE.close);
    return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : undefined;
  }
}
