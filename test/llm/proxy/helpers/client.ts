import http from 'node:http';

export type ClientResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

export type ClientRequestOptions = {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
};

/** One request on a fresh connection (no pooling between tests), body collected as bytes. */
export function request(url: string, options: ClientRequestOptions = {}): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    // Node frames bodies of DELETE and friends only when told the length.
    if (options.body !== undefined && headers['transfer-encoding'] === undefined) {
      headers['content-length'] ??= Buffer.byteLength(options.body);
    }
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.end(options.body);
  });
}

/** Parses an Anthropic-style error body. */
export function errorOf(response: ClientResponse): {
  type: string;
  error: { type: string; message: string };
} {
  return JSON.parse(response.body.toString('utf8'));
}
