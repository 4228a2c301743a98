import { CommandError, RibosomeClient } from '../../../core/client/index.ts';

/**
 * codon.forceStop on a job's server, as a person's client would send it; the connection is closed
 * after. Whether a codon was stopped: false when none was running (between two codons).
 */
export async function forceStopJob(url: string, reason: string, token: string | undefined): Promise<boolean> {
  const client = await RibosomeClient.connect(url, {
    mode: 'readandwrite',
    connectTimeoutMs: 5_000,
    ...(token ? { token } : {}),
  });
  try {
    await client.request('codon.forceStop', { reason }, 'codon.completed', { timeoutMs: 15_000 });
    return true;
  } catch (error) {
    if (error instanceof CommandError) return false;
    throw error;
  } finally {
    await client.close();
  }
}
