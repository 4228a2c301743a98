import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { REVIEW_TEXT_MAX_BYTES } from '../../../src/core/protocol/review.ts';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { waitFor } from '../../helpers/processes.ts';
import { B_BEFORE, bash, REVIEW_PLAN, reply, reviewScript, write } from '../../helpers/review-plan.ts';
import { tempDir } from '../../helpers/server-process.ts';
import {
  browserResources,
  HAVE_CHROMIUM,
  needChromium,
  overflowsSideways,
  PHONE,
  readonlyDashboard,
  serveWithDashboard,
  shootBoth,
  WAIT,
} from './helpers/browser.ts';

/**
 * Line comments in the dashboard's Changes view, sent on with "Send review" (docs/review.md,
 * docs/dashboard.md): a person picks lines of codon two's diff, writes, saves (review.comment), and
 * sends the review to a redo of the codon, the running agent or the next codon (review.submit). A real
 * server, the built-in agent on a scripted provider this test runs (so every request the agent makes
 * is seen), real git checkpoints, the page in Debian's chromium.
 */
needChromium('test/clients/web/review.e2e.test.ts');
const { temps } = e2eResources();
const providers: MockProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.stop()));
});

const A_NEW =
  'export const a1 = 1;\nexport const a2 = 2;\nexport const a3 = 3;\nexport const a4 = 4;\nexport const a5 = 5;\n';

/** Codon one writes b.txt; two writes a.ts (new) and changes line 3 of b.txt; three answers. */
const script = (two?: ScriptInput['turns']): ScriptInput =>
  reviewScript({ path: 'a.ts', content: A_NEW }, two);

describe.skipIf(!HAVE_CHROMIUM)(
  'line comments and Send review in the dashboard',
  { timeout: 180_000 },
  () => {
    const { newPage, problems } = browserResources();

    async function setUp(
      s: ScriptInput,
      viewport?: { width: number; height: number },
      before?: (page: Page) => Promise<void>,
    ) {
      const t = tempDir();
      temps.push(t);
      writeFileSync(join(t.path, 'plan.yaml'), REVIEW_PLAN);
      const provider = await startMockProvider({ script: s });
      providers.push(provider);
      const exec = join(t.path, 'exec');
      mkdirSync(exec, { recursive: true });
      const { server, dashboard } = await serveWithDashboard(
        join(t.path, 'plan.yaml'),
        exec,
        ['--no-autostart', '--provider-base-url', provider.url],
        { ANTHROPIC_API_KEY: 'test-key' },
      );
      const page = await newPage(viewport);
      await before?.(page);
      await page.goto(dashboard);
      await page.waitForSelector('[data-testid="connection"]:has-text("open")');
      return { page, provider, root: join(exec, 'agentRoot'), url: server.url };
    }

    /** Runs the next codon from the overview and waits for it to complete. */
    async function runNext(page: Page, codonId: string) {
      await page.keyboard.press('1');
      await page.click('[data-testid="control-next"]');
      await page.waitForSelector(`[data-testid="codon-${codonId}"][data-status="completed"]`);
    }

    /** The codon's diff in the Changes view (selected in the overview). */
    async function openChanges(page: Page, codonId: string, file: string) {
      await page.keyboard.press('1');
      await page.click(`[data-testid="codon-${codonId}"]`);
      await page.keyboard.press('3');
      await page.waitForSelector(`[data-testid="review"][data-codon="${codonId}"]`);
      await page.waitForSelector(`[data-testid="diff-file"][data-path="${file}"]`);
    }

    /**
     * Picks lines as a person does (a click on the first line's number, then on the last's: a phone's
     * tap and tap; `shift` for a shift-click), writes the comment and saves it; waits until the server's
     * review.comment puts it in the codon's list.
     */
    async function comment(
      page: Page,
      at: { file: string; side: 'new' | 'old'; start: number; end: number; shift?: boolean },
      text: string,
    ) {
      const diff = page.locator(`[data-testid="diff-file"][data-path="${at.file}"]`);
      const line = (n: number) =>
        diff.locator(`[data-testid="line-no"][data-side="${at.side}"][data-line="${n}"]`);
      await line(at.start).click();
      if (at.end !== at.start) await line(at.end).click(at.shift ? { modifiers: ['Shift'] } : {});
      const form = page.locator('[data-testid="comment-form"]');
      expect(await form.textContent()).toContain(
        `${at.file}:${at.start === at.end ? at.start : `${at.start}-${at.end}`}`,
      );
      await page.fill('[data-testid="comment-text"]', text);
      await page.click('[data-testid="comment-save"]');
      await page.waitForSelector(
        `[data-testid="review"] [data-testid="comment"][data-state="unsent"]:has-text("${text}")`,
      );
    }

    /** Opens Send review, picks where to, writes the note, sends. */
    async function send(page: Page, to: 'redo' | 'message' | 'next', note?: string, shoot?: string) {
      await page.click('[data-testid="review-send"]');
      const dialog = page.locator('[data-testid="review-dialog"]');
      await dialog.waitFor();
      await dialog.locator(`[data-testid="review-to-${to}"] input`).check();
      if (note) await page.fill('[data-testid="review-note"]', note);
      if (shoot) await shootBoth(page, shoot);
      await page.click('[data-testid="review-submit"]');
      await dialog.waitFor({ state: 'detached' });
    }

    /** The first request the agent made on a track, as JSON text. */
    function firstRequest(provider: MockProvider, track: string): string {
      const request = provider.requests.find((q) => q.track === track);
      expect(request, `a request on track ${track}`).toBeDefined();
      return JSON.stringify(request?.body);
    }

    it('comments on two line ranges of codon two, shown inline and listed unsent; Send with redo runs two again from its start with both in its prompt; they show as sent (redo)', async () => {
      const { page, provider, root, url } = await setUp(script());
      await runNext(page, 'one');
      await runNext(page, 'two');
      await openChanges(page, 'two', 'a.ts');
      await page.waitForSelector('[data-testid="empty-comments"]');
      // The TypeScript file is highlighted.
      await page.waitForSelector('[data-testid="diff-file"][data-path="a.ts"] .hljs-keyword');

      await comment(page, { file: 'a.ts', side: 'new', start: 2, end: 3 }, 'NEW-SIDE: why a2?');
      await comment(page, { file: 'b.txt', side: 'old', start: 3, end: 3 }, 'OLD-SIDE: keep b3');
      const listed = page.locator('[data-testid="review"] ol [data-testid="comment"]');
      expect(await listed.count()).toBe(2);
      expect(await page.locator('[data-testid="review-count"]').textContent()).toBe('2 comments · 2 unsent');
      // Inline, under their last line, on the diff they were made on.
      const inline = (file: string) =>
        page.locator(`[data-testid="diff-file"][data-path="${file}"] .note-row [data-testid="comment"]`);
      expect(await inline('a.ts').textContent()).toContain('NEW-SIDE: why a2?');
      expect(await inline('b.txt').textContent()).toContain('OLD-SIDE: keep b3');
      // Each commented line is marked in the gutter; a click on a mark brings its comment to focus.
      const marks = page.locator('[data-testid="diff-file"][data-path="a.ts"] [data-testid="comment-mark"]');
      expect(await marks.evaluateAll((m) => m.map((e) => e.getAttribute('data-line')))).toEqual(['2', '3']);
      await marks.first().click();
      // Focus moves once the page has drawn (Preact renders after the event): polled, not read at once.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: WAIT })
        .toContain('NEW-SIDE: why a2?');
      await shootBoth(page, 'review-comments');

      // A read-only page sees the comments; it cannot pick lines nor send, and says why.
      const viewer = await newPage();
      await viewer.goto(await readonlyDashboard(url));
      await viewer.waitForSelector('[data-testid="connection"]:has-text("read-only")');
      await openChanges(viewer, 'two', 'a.ts');
      await viewer.waitForSelector('[data-testid="review"] ol [data-testid="comment"] >> nth=1');
      expect(await viewer.isDisabled('[data-testid="review-send"]')).toBe(true);
      expect(await viewer.locator('[data-testid="review-cannot"]').textContent()).toContain('read-only');
      expect(await viewer.isDisabled('[data-testid="line-no"] >> nth=0')).toBe(true);
      await shootBoth(viewer, 'review-readonly');

      // No codon runs: a message to the running agent is offered, disabled, with the reason. The
      // dialog dims the page; Escape closes it and focus is back on Send review.
      await page.click('[data-testid="review-send"]');
      await page.waitForSelector('[data-testid="backdrop"]');
      const message = page.locator('[data-testid="review-to-message"]');
      expect(await message.locator('input').isDisabled()).toBe(true);
      expect(await message.textContent()).toContain('unavailable: no codon is running');
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid="review-dialog"]', { state: 'detached' });
      expect(await page.locator('[data-testid="backdrop"]').count()).toBe(0);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')), {
          timeout: WAIT,
        })
        .toBe('review-send');

      expect(existsSync(join(root, 'a.ts'))).toBe(true);
      await send(page, 'redo', 'Please fix these.', 'review-send-dialog');
      // Both are marked sent (redo) as soon as the server says the review went.
      await page.waitForSelector(
        '[data-testid="review"] ol [data-testid="comment"][data-state="sent-redo"] >> nth=1',
      );
      expect(
        await page.locator('[data-testid="review"] ol [data-testid="comment-state"]').allTextContents(),
      ).toEqual(['sent · redo', 'sent · redo']);
      // Two runs again from its start: its first writes are gone, one's b.txt is back, the redo wrote.
      await waitFor(() => existsSync(join(root, 'redone.txt')), 'the redo to write redone.txt', WAIT);
      await page.keyboard.press('1');
      await page.waitForSelector('[data-testid="codon-two"][data-status="completed"]');
      expect(existsSync(join(root, 'a.ts'))).toBe(false);
      expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe(B_BEFORE);
      const asked = firstRequest(provider, 'redo');
      for (const part of [
        'Do two.',
        'Please fix these.',
        'a.ts, lines 2-3 (new side',
        '+export const a1 = 1;\\n+export const a2 = 2;\\n+export const a3 = 3;\\n+export const a4 = 4;',
        'NEW-SIDE: why a2?',
        'b.txt, line 3 (old side',
        ' b2\\n-b3\\n+B3 changed',
        'OLD-SIDE: keep b3',
      ])
        expect(asked).toContain(part);
      await page.keyboard.press('3');
      await page.waitForSelector('[data-testid="review"] ol [data-testid="comment"] >> nth=1');
      await shootBoth(page, 'review-sent');
      expect(problems(page)).toEqual([]);
    });

    it('message to the running agent: offered once a codon runs; its next request carries the comment; shown as sent (message)', async () => {
      const { page, provider, root } = await setUp(
        script([bash('while [ ! -f go ]; do sleep 0.1; done; echo waited'), reply('Two done.')]),
      );
      await runNext(page, 'one');
      await openChanges(page, 'one', 'b.txt');
      // A phone taps the first line, then the last; here with shift-click, as on a desktop.
      await comment(page, { file: 'b.txt', side: 'new', start: 1, end: 2, shift: true }, 'MESSAGE-ME');

      await page.keyboard.press('1');
      await page.click('[data-testid="control-next"]');
      await page.waitForSelector('[data-testid="codon-two"][data-status="running"]');
      await page.keyboard.press('3');
      await page.waitForSelector('[data-testid="review"][data-codon="one"]');
      await send(page, 'message');
      await page.waitForSelector(
        '[data-testid="review"] [data-testid="comment"][data-state="sent-message"]:has-text("sent · message to the running agent (two)")',
      );
      // In the diff, the sent comment folds to one line, a click away from whole.
      const folded = page.locator('.note-row [data-testid="comment"].folded');
      await folded.waitFor();
      await folded.locator('[data-testid="comment-more"]').click();
      await page.waitForSelector('.note-row [data-testid="comment"]:not(.folded):has-text("MESSAGE-ME")');
      writeFileSync(join(root, 'go'), '');
      await page.keyboard.press('1');
      await page.waitForSelector('[data-testid="codon-two"][data-status="completed"]');
      const asked = firstRequest(provider, 'heard');
      expect(asked).toContain('b.txt, lines 1-2 (new side');
      expect(asked).toContain('MESSAGE-ME');
      expect(existsSync(join(root, 'heard.txt'))).toBe(true);
      expect(problems(page)).toEqual([]);
    });

    it('on a phone: a second tap in another hunk starts anew and says why; a refused save keeps the text and shows why; comments fit the screen while the code scrolls sideways', async () => {
      const lines = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);
      const changed = lines.map((l, i) =>
        i === 2 ? 'C3 changed' : i === 16 ? `C17 ${'long line '.repeat(30)}` : l,
      );
      const twoHunks: ScriptInput = {
        tracks: [
          {
            name: 'one',
            match: { firstUser: 'Do one.' },
            turns: [write('c.txt', `${lines.join('\n')}\n`), reply('One done.')],
          },
          {
            name: 'two',
            match: { firstUser: 'Do two.' },
            turns: [write('c.txt', `${changed.join('\n')}\n`), reply('Two done.')],
          },
        ],
      };
      // The box keeps no more than a comment may hold; to see a refusal all the same, the page's
      // socket is routed and its comment marked REFUSE is sent longer than the server takes.
      const { page } = await setUp(twoHunks, PHONE, (p) =>
        p.routeWebSocket(/^ws:/, (ws) => {
          const server = ws.connectToServer();
          ws.onMessage((m) =>
            server.send(
              typeof m === 'string' && m.includes('"type":"review.comment"') && m.includes('REFUSE')
                ? m.replace('REFUSE', 'x'.repeat(REVIEW_TEXT_MAX_BYTES))
                : m,
            ),
          );
          server.onMessage((m) => ws.send(m));
        }),
      );
      await runNext(page, 'one');
      await runNext(page, 'two');
      await openChanges(page, 'two', 'c.txt');
      const diff = page.locator('[data-testid="diff-file"][data-path="c.txt"]');
      const line = (n: number) => diff.locator(`[data-testid="line-no"][data-side="new"][data-line="${n}"]`);
      // Lines 3 and 17 are in two hunks: the second tap starts a pick there, and says why.
      await line(3).click();
      await line(17).click();
      const form = page.locator('[data-testid="comment-form"]');
      expect(await form.locator('label').textContent()).toBe('Comment on c.txt:17');
      expect(await page.locator('[data-testid="comment-pick-hint"]').textContent()).toContain('one hunk');
      // The composer fits the phone, though the code under it is wider.
      const fits = async (selector: string) => {
        const box = await page.locator(selector).first().boundingBox();
        return box !== null && box.x >= 0 && box.x + box.width <= PHONE.width;
      };
      expect(await diff.locator('.code-scroll').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
      expect(await fits('[data-testid="comment-form"]')).toBe(true);
      expect(await overflowsSideways(page)).toBe(false);
      // The box keeps at most what a comment may hold (REVIEW_TEXT_MAX_BYTES), and says so near it.
      await page.fill('[data-testid="comment-text"]', 'x'.repeat(REVIEW_TEXT_MAX_BYTES + 1024));
      expect((await page.inputValue('[data-testid="comment-text"]')).length).toBe(REVIEW_TEXT_MAX_BYTES);
      expect(await page.locator('[data-testid="comment-size"]').textContent()).toBe('16 of 16 KiB');
      // A comment the server refuses keeps its text, the reason under it.
      await page.fill('[data-testid="comment-text"]', 'REFUSE this one');
      expect(await page.locator('[data-testid="comment-size"]').count()).toBe(0);
      await page.click('[data-testid="comment-save"]');
      await page.waitForSelector('[data-testid="comment-error"]');
      expect(await page.locator('[data-testid="comment-error"]').textContent()).toMatch(
        new RegExp(`^Not saved: .*at most ${REVIEW_TEXT_MAX_BYTES}`),
      );
      expect(await page.inputValue('[data-testid="comment-text"]')).toBe('REFUSE this one');
      await shootBoth(page, 'phone-comment-refused');
      // Written shorter, it is saved: the composer closes, focus is back on the line tapped.
      await page.fill('[data-testid="comment-text"]', 'SEVENTEEN: too long');
      await page.click('[data-testid="comment-save"]');
      await page.waitForSelector('[data-testid="comment-form"]', { state: 'detached' });
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-line')), { timeout: WAIT })
        .toBe('17');
      const inline = '[data-testid="diff-file"] .note-row [data-testid="comment"]';
      await page.waitForSelector(`${inline}:has-text("SEVENTEEN")`);
      expect(await fits(inline)).toBe(true);
      expect(await overflowsSideways(page)).toBe(false);
      await shootBoth(page, 'phone-comment-saved');
      expect(problems(page)).toEqual([]);

      // The address keeps the view, the codon and the diff's checkpoints: a reload shows the same;
      // Back returns to the overview.
      const from = await page.inputValue('[data-testid="diff-from"]');
      expect(new URL(page.url()).hash).toContain('view=changes');
      await page.reload();
      await page.waitForSelector('[data-testid="review"][data-codon="two"]');
      await page.waitForSelector('[data-testid="diff-file"][data-path="c.txt"]');
      expect(await page.inputValue('[data-testid="diff-from"]')).toBe(from);
      await page.goBack();
      await page.waitForSelector('[data-testid="view-overview"]');
    });

    it('next codon, on a phone: tap and tap picks the lines; codon three’s prompt carries the comment; shown as sent (next codon)', async () => {
      const { page, provider } = await setUp(script(), PHONE);
      await runNext(page, 'one');
      await runNext(page, 'two');
      await openChanges(page, 'two', 'a.ts');
      await comment(page, { file: 'a.ts', side: 'new', start: 4, end: 5 }, 'NEXT-ONE: a5 is odd');
      await shootBoth(page, 'phone-review-comments');
      await send(page, 'next');
      await page.waitForSelector(
        '[data-testid="review"] [data-testid="comment"][data-state="sent-next"]:has-text("sent · next codon (three)")',
      );
      await runNext(page, 'three');
      const request = provider.requests.find((q) => JSON.stringify(q.body).includes('Do three.'));
      const asked = JSON.stringify(request?.body);
      expect(asked).toContain('a.ts, lines 4-5 (new side');
      expect(asked).toContain('NEXT-ONE: a5 is odd');
      expect(problems(page)).toEqual([]);
    });
  },
);
