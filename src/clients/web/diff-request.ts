import type { ClientCore } from '../../core/client/browser.ts';
import type { CheckpointDiffData } from '../../core/protocol/index.ts';

/** Asks the server for the diff between two checkpoints (`checkpoint.diff`, answered to the asker only). */
export async function requestDiff(client: ClientCore, from: string, to: string): Promise<CheckpointDiffData> {
  const answer = await client.request('checkpoint.diff', { from, to }, 'checkpoint.diff', {
    timeoutMs: 30_000,
  });
  return answer.data;
}
