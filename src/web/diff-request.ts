import type { ClientCore } from '../client/browser.ts';
import type { CheckpointDiff } from './model/diff-layout.ts';

type LooseRequest = (
  type: string,
  data: unknown,
  expect: string,
  options: { timeoutMs?: number },
) => Promise<{ data: unknown }>;

/**
 * Asks the server for the diff between two checkpoints (`checkpoint.diff`, answered to the asker
 * only). Typed loosely here: the command is a protocol extension the server side defines.
 */
export async function requestDiff(client: ClientCore, from: string, to: string): Promise<CheckpointDiff> {
  const request = client.request.bind(client) as unknown as LooseRequest;
  const answer = await request('checkpoint.diff', { from, to }, 'checkpoint.diff', { timeoutMs: 30_000 });
  return answer.data as CheckpointDiff;
}
