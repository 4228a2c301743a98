import { createServer } from 'node:net';
import type { CheckResult } from './check-result.ts';

/** Binds `host:port` for a moment and closes it; port 0 (run's default) asks for any free port. */
export function checkPort(host: string, port: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve({
        check: 'port',
        status: 'fail',
        detail: `${host}:${port}: ${error.code ?? error.message}`,
        fix:
          error.code === 'EADDRINUSE'
            ? `stop what listens on ${port}, or pass another --port (absent or 0 = a dynamic port)`
            : 'pass another --port, or --host an address of this machine',
      });
    });
    server.listen({ host, port, exclusive: true }, () => {
      const bound = server.address();
      const got = typeof bound === 'object' && bound ? bound.port : port;
      server.close(() =>
        resolve({
          check: 'port',
          status: 'ok',
          detail: port === 0 ? `no --port: a dynamic one (e.g. ${got}) on ${host}` : `${host}:${port} free`,
        }),
      );
    });
  });
}
