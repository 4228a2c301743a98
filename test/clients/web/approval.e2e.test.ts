import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { journalRows, tempDir } from '../../helpers/server-process.ts';
import {
  browserResources,
  HAVE_CHROMIUM,
  needChromium,
  PHONE,
  readonlyDashboard,
  serveWithDashboard,
  shootBoth,
  WAIT,
} from './helpers/browser.ts';

/**
 * Approval gates in the dashboard (docs/review.md#approval-gates, docs/dashboard.md): codon one says
 * `approval: required`, so once it ends well the run waits; the page shows a banner with Approve,
 * Request changes and Roll back; a read-only page shows it with the buttons disabled; the wait
 * outlives a kill -9 of the server. A real server on the scripted provider, the page in chromium.
 */
needChromium('test/clients/web/approval.e2e.test.ts');
const { temps } = e2eResources();

const PLAN = `name: gates
agent: builtin
codons:
  - id: one
    name: Design
    prompt: Do one.
    approval: required
  - id: two
    name: Build
    prompt: Do two.
`;
const track = (id: string, match: string, turns: string) =>
  `  - name: ${id}\n    match: { firstUser: ${JSON.stringify(match)} }\n    loop: true\n    turns:\n${turns.replace(/^(?=.)/gm, '    ')}`;
const SCRIPT = `tracks:
${track('changes', 'Review of the changes of codon one', writeTurns('changed.txt', 'changed'))}${track('one', 'Do one.', writeTurns('one.txt', 'one'))}${track('two', 'Do two.', writeTurns('two.txt', 'two'))}turns: []
`;

describe.skipIf(!HAVE_CHROMIUM)('approval gates in the dashboard', { timeout: 180_000 }, () => {
  const { newPage, problems } = browserResources();

  function files() {
    const t = tempDir();
    temps.push(t);
    return { ...writePlanAndScript(t.path, PLAN, SCRIPT), exec: join(t.path, 'exec') };
  }
  const serve = (f: ReturnType<typeof files>) =>
    serveWithDashboard(f.plan, f.exec, ['--scripted-provider', f.script]);
  const banner = (page: Page) => page.locator('[data-testid="approval-wait"]');

  /** A page of `ribosome web --readonly`: it may only watch. */
  async function readonlyPage(url: string): Promise<Page> {
    const page = await newPage();
    await page.goto(await readonlyDashboard(url));
    await page.waitForSelector('[data-testid="connection"]:has-text("read-only")');
    return page;
  }

  it('waits after codon one; a read-only page cannot approve; Request changes redoes one with the review; Approve starts two', async () => {
    const f = files();
    const { server, dashboard } = await serve(f);
    const page = await newPage();
    await page.goto(dashboard);
    await banner(page).waitFor();
    expect(await page.locator('[data-testid="approval-text"]').textContent()).toBe(
      'Waiting for approval of codon one (Design)',
    );
    await page.waitForSelector('[data-testid="codon-one"]:has-text("waiting for approval")');
    expect(await page.locator('[data-testid="run-pill"]').getAttribute('class')).toContain('st-waiting');
    expect(await page.locator('[data-testid="codon-two"]').getAttribute('data-status')).toBe('pending');
    await shootBoth(page, 'approval');

    // A read-only page sees the wait; its buttons are disabled and say why.
    const viewer = await readonlyPage(server.url);
    await banner(viewer).waitFor();
    for (const button of ['approval-approve', 'approval-changes', 'approval-rollback'])
      expect(await viewer.isDisabled(`[data-testid="${button}"]`)).toBe(true);
    expect(await viewer.locator('[data-testid="approval-cannot"]').textContent()).toContain('read-only');
    await shootBoth(viewer, 'approval-readonly');

    // Request changes: the send-review dialog, set to redo one. A review sends comments: with none
    // yet, it says so and leads to one's diff.
    await page.click('[data-testid="approval-changes"]');
    const dialog = page.locator('[data-testid="review-dialog"]');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Request changes to one');
    expect(await dialog.locator('[data-testid="review-to-redo"] input').isChecked()).toBe(true);
    expect(await page.locator('[data-testid="review-dialog-count"]').textContent()).toContain(
      'No unsent comment on one',
    );
    expect(await page.isDisabled('[data-testid="review-submit"]')).toBe(true);
    await page.click('[data-testid="review-open-changes"]');
    await page.waitForSelector('[data-testid="review"][data-codon="one"]');
    const diff = page.locator('[data-testid="diff-file"][data-path="one.txt"]');
    await diff.locator('[data-testid="line-no"][data-side="new"][data-line="1"]').click();
    await page.fill('[data-testid="comment-text"]', 'Name it after the design doc.');
    await page.click('[data-testid="comment-save"]');
    await page.waitForSelector('[data-testid="review"] [data-testid="comment"][data-state="unsent"]');
    // The banner stays above every view: Request changes now sends the comment, with a note.
    await page.click('[data-testid="approval-changes"]');
    await dialog.waitFor();
    expect(await page.locator('[data-testid="review-dialog-count"]').textContent()).toContain(
      '1 unsent comment',
    );
    await page.fill('[data-testid="review-note"]', 'Please rename.');
    await shootBoth(page, 'approval-request-changes');
    await page.click('[data-testid="review-submit"]');
    // One runs again with the review, ends well, and the run waits for approval again.
    await waitFor(
      () =>
        journalRows(f.exec).some((r) => r.type === 'approval.ended' && r.data.how === 'changes-requested'),
      'the wait to end with changes requested',
      WAIT,
    );
    await waitFor(
      () => journalRows(f.exec).filter((r) => r.type === 'approval.waiting').length === 2,
      'a second wait after the redo',
      WAIT,
    );
    const prompts = journalRows(f.exec).filter((r) => r.type === 'codon.message' && r.data.codonId === 'one');
    expect(JSON.stringify(prompts)).toContain('Name it after the design doc.');
    expect(JSON.stringify(prompts)).toContain('Please rename.');
    await page.waitForSelector('[data-testid="review"] [data-testid="comment"][data-state="sent-redo"]');
    await page.keyboard.press('1');
    await banner(page).waitFor();
    expect(await page.locator('[data-testid="codon-two"]').getAttribute('data-status')).toBe('pending');

    // Approve: the wait ends and codon two starts, in both pages.
    await page.click('[data-testid="approval-approve"]');
    await banner(page).waitFor({ state: 'detached' });
    await page.waitForSelector('[data-testid="codon-two"][data-status="completed"]');
    await banner(viewer).waitFor({ state: 'detached' });
    const ended = journalRows(f.exec).filter((r) => r.type === 'approval.ended');
    expect(ended.map((r) => r.data.how)).toEqual(['changes-requested', 'approved']);
    expect(problems(page)).toEqual([]);
  });

  it('kill -9 while it waits, a restart: the dashboard still shows the wait, on a phone too', async () => {
    const f = files();
    const first = await serve(f);
    const page = await newPage(PHONE);
    await page.goto(first.dashboard);
    await banner(page).waitFor();
    // The phone's header keeps the primary action: approve.
    await page.waitForSelector('[data-testid="primary-approve"]:has-text("Approve one")');
    // The codon table fits the phone with its "awaits approval" pill (trial 35b: 428 px in 390).
    await page.waitForSelector('[data-testid="codon-one"]:has-text("awaits approval")');
    expect(
      await page.evaluate(() => {
        const box = document.querySelector('.timeline')?.parentElement;
        return box ? box.scrollWidth - box.clientWidth : -1;
      }),
    ).toBe(0);
    // During the wait, start one runs it again (and ends the wait); skip and force stop have nothing
    // to act on; redo may redo one.
    expect(await page.getAttribute('[data-testid="control-start"]', 'title')).toContain(
      'run one again from its start: ends the approval wait',
    );
    for (const control of ['control-skip', 'control-stop']) {
      expect(await page.isDisabled(`[data-testid="${control}"]`)).toBe(true);
      expect(await page.getAttribute(`[data-testid="${control}"]`, 'title')).toBe('no codon is running');
    }
    expect(await page.isDisabled('[data-testid="control-redo"]')).toBe(false);
    first.server.kill('SIGKILL');
    await first.server.exited;
    await page.waitForSelector('[data-testid="reconnecting"], [data-testid="disconnected"]');
    // Disconnected: every control is disabled, saying why (as on a read-only page).
    await page.waitForSelector('[data-testid="approval-approve"]:disabled');
    for (const control of [
      'approval-approve',
      'approval-changes',
      'primary-approve',
      'control-redo',
      'control-rollback',
    ])
      expect(await page.getAttribute(`[data-testid="${control}"]`, 'title')).toMatch(/^not connected: /);
    expect(await page.isDisabled('[data-testid="primary-approve"]')).toBe(true);

    const second = await serve(f);
    await page.goto(second.dashboard);
    await banner(page).waitFor();
    expect(await page.locator('[data-testid="approval-text"]').textContent()).toBe(
      'Waiting for approval of codon one (Design)',
    );
    await page.waitForSelector('[data-testid="codon-one"]:has-text("waiting for approval")');
    await shootBoth(page, 'phone-approval');
    await page.click('[data-testid="primary-approve"]');
    await page.waitForSelector('[data-testid="codon-two"][data-status="completed"]');
    expect(problems(page).filter((p) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(p))).toEqual([]);
  });
});
