import { describe, expect, it } from 'vitest';
import {
  type BatchKeyContext,
  type BatchView,
  handleBatchKey,
  keyLine,
  selectedJob,
} from '../../../../src/clients/batch/view/batch-keys.ts';
import { jobOpening, shellWord } from '../../../../src/clients/batch/view/job-opening.ts';
import { BATCH_DIR, everyState, job } from './helpers/summaries.ts';

const ctx = (jobs = everyState()): BatchKeyContext => ({ jobs, batchDir: BATCH_DIR, pageSize: 3 });
const press = (view: BatchView, input: string, key = {}, c = ctx()) => handleBatchKey(view, input, key, c);

describe('the batch table’s keys', () => {
  it('↓/j and ↑/k move the selection from the first job, and stop at the ends', () => {
    let view: BatchView = {};
    expect(selectedJob(view, ctx().jobs)?.id).toBe('job-0');
    view = press(view, '', { downArrow: true }).view;
    view = press(view, 'j').view;
    expect(view.selected).toBe('job-2');
    view = press(view, 'k').view;
    expect(view.selected).toBe('job-1');
    view = press(view, '', { upArrow: true }).view;
    view = press(view, '', { upArrow: true }).view;
    expect(view.selected).toBe('job-0');
    view = press(view, '', { pageDown: true }).view;
    expect(view.selected).toBe('job-3');
    view = press(view, '', { end: true }).view;
    view = press(view, 'j').view;
    expect(view.selected).toBe('job-5');
    view = press(view, '', { home: true }).view;
    expect(view.selected).toBe('job-0');
  });

  it('the selection follows its job when the rows change under it', () => {
    const view = press(press({}, 'j').view, 'j').view;
    expect(view.selected).toBe('job-2');
    // job-2 was retried and runs; a new job came first: the selection is still job-2.
    const jobs = [
      job(0, 'running', { id: 'new' }),
      ...everyState().map((j) => ({ ...j, index: j.index + 1 })),
    ];
    expect(selectedJob(view, jobs)?.id).toBe('job-2');
    expect(press(view, 'j', {}, ctx(jobs)).view.selected).toBe('job-3');
  });

  it('enter or o on a running job asks to open its TUI at its address', () => {
    const view = press({}, 'j').view;
    expect(press(view, '', { return: true }).effects).toEqual([
      { kind: 'open', jobId: 'job-1', url: 'ws://127.0.0.1:40001' },
    ]);
    expect(press(view, 'o').effects).toEqual([{ kind: 'open', jobId: 'job-1', url: 'ws://127.0.0.1:40001' }]);
  });

  it('enter on a job that is not running opens nothing and says why, and how to read it instead', () => {
    const passed = press({}, '', { return: true });
    expect(passed.effects).toEqual([]);
    expect(passed.view.notice?.text).toBe(
      `job job-0 passed and no longer runs, so it has no TUI; read it with: ribosome log --execution ${BATCH_DIR}/jobs/job-0`,
    );
    const at = (index: number) => press({ selected: `job-${index}` }, '', { return: true });
    expect(at(3).view.notice?.text).toBe('job job-3 has not started: its TUI opens once it runs');
    expect(at(4).view.notice?.text).toBe(
      'job job-4 was skipped (the batch budget is spent): it never ran, so it has no TUI',
    );
    expect(at(5).view.notice?.text).toMatch(/^job job-5 failed to run and no longer runs/);
    for (const index of [3, 4, 5]) expect(at(index).effects).toEqual([]);
    // Moving on clears the news.
    expect(press(passed.view, 'j').view.notice).toBeUndefined();
  });

  it('a running job whose address is not known yet cannot open either', () => {
    const jobs = [job(0, 'running')];
    const outcome = press({}, '', { return: true }, ctx(jobs));
    expect(outcome.effects).toEqual([]);
    expect(outcome.view.notice?.text).toMatch(/is starting: its address is not known yet/);
  });

  it('q and Ctrl-C ask the batch to stop, and say so; each press asks again', () => {
    const q = press({}, 'q');
    expect(q.effects).toEqual([{ kind: 'stop' }]);
    expect(q.view.notice?.text).toMatch(/^stopping the batch/);
    expect(press(q.view, 'q').effects).toEqual([{ kind: 'stop' }]);
    expect(press({}, 'c', { ctrl: true }).effects).toEqual([{ kind: 'stop' }]);
    // In the help too.
    expect(press({ modal: { kind: 'help' } }, 'q').effects).toEqual([{ kind: 'stop' }]);
  });

  it('? opens the help, where moving does nothing; esc or ? closes it', () => {
    const help = press({}, '?').view;
    expect(help.modal).toEqual({ kind: 'help' });
    expect(press(help, 'j').view).toBe(help);
    expect(press(help, '', { return: true }).effects).toEqual([]);
    expect(press(help, '', { escape: true }).view.modal).toBeUndefined();
    expect(press(help, '?').view.modal).toBeUndefined();
  });

  it.each([
    [80, '↑↓ move  enter/o open TUI  q stop batch  ? help'],
    [40, '↑↓ move  q stop batch  ? help'],
    [20, 'q stop batch  ? help'],
  ])('the key line at %i columns: %s', (width, line) => {
    expect(keyLine(width)).toBe(line);
  });
});

describe('what reads a job', () => {
  it('quotes a directory a shell would split', () => {
    expect(shellWord('/tmp/batches/demo/jobs/a')).toBe('/tmp/batches/demo/jobs/a');
    expect(shellWord("/tmp/my batches/it's")).toBe(`'/tmp/my batches/it'\\''s'`);
    const opening = jobOpening(job(0, 'failed'), '/tmp/my batches');
    expect(opening).toEqual({
      ok: false,
      why: "job job-0 failed and no longer runs, so it has no TUI; read it with: ribosome log --execution '/tmp/my batches/jobs/job-0'",
    });
  });
});
