import { RibosomeClient } from '../../../core/client/index.ts';

/** codon.forceStop on a job's server, as a person's client would send it; the connection is closed after. */
export async function forceStopJob(url: string, reason: string, token: string | undefined): Promise<void> {
  const client = await RibosomeClient.connect(url, {
    mode: 'readandwrite',
    connectTimeoutMs: 5_000,
    ...(token ? { token } : {}),
  });
  try {
    client.send('codon.forceStop', { reason });
    // The command is journaled or refused (no codon running) before the server answers anything else.
    await client.request('ping.broadcast', undefined, 'pong', { timeoutMs: 5_000 }).catch(() => {});
  } finally {
    await client.close();
  }
}
