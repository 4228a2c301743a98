import type { ServerEvent } from '../../core/protocol/index.ts';
import { newsOf } from './follow.ts';
import type { Progress } from './progress.ts';
import { readStatus } from './read-run.ts';
import type { Target } from './target.ts';

/**
 * Progress notifications of a followed run: one per codon started or ended (with the codons done, read
 * from the execution as it is then), rollback step and idle.
 */
export function reportNews(target: Target, progress: Progress): (event: ServerEvent) => void {
  return (event) => {
    if (newsOf(event, { done: 0, total: 0 }) === undefined) return;
    let counts = { done: 0, total: undefined as number | undefined };
    try {
      const status = readStatus(target);
      counts = { done: status.done, total: status.total };
    } catch {
      // The counts are a nicety: the news goes without them.
    }
    const news = newsOf(event, counts);
    if (news) progress(news);
  };
}
