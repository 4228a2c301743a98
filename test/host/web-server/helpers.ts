import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { WebSocket } from 'ws';

export type HttpAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
};

/** One HTTP GET with the path sent exactly as given (`/../x` stays as is). */
export function get(url: string, path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET', headers, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens a WebSocket with these headers and tells what came of it: `open` (upgraded) or the HTTP
 * status the server refused it with.
 */
export function upgrade(
  url: string,
  headers: Record<string, string> = {},
  protocols: string[] = [],
): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, handshakeTimeout: 5_000 });
    ws.once('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', (error) => reject(error));
  });
}

/** A dashboard's ticket for a page of `origin` (its `/ticket`), with the dashboard's key if any. */
export async function ticketFrom(
  dashboard: string,
  origin: string,
  key?: string,
  server = 0,
): Promise<{ status: number; ticket?: string; message?: string }> {
  const answer = await get(
    dashboard,
    `/ticket?server=${server}&origin=${encodeURIComponent(origin)}`,
    key === undefined ? {} : { authorization: `Bearer ${key}` },
  );
  const body = JSON.parse(answer.body) as { ticket?: string; message?: string };
  return { status: answer.status, ...body };
}

/** A tiny stand-in for dist-web/, and a file beside it that must never be served. */
export function fakeDashboard(dir: string): string {
  const root = join(dir, 'dist-web');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>fake dashboard</title>\n');
  writeFileSync(join(root, 'app.js'), 'console.log("fake");\n');
  writeFileSync(join(root, 'app.css'), 'body{}\n');
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(dir, 'secret.txt'), 'not for the web\n');
  return root;
}
