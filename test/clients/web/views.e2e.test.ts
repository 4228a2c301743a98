import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { tempDir } from '../../helpers/server-process.ts';
import {
  browserResources,
  HAVE_CHROMIUM,
  needChromium,
  overflowsSideways,
  PHONE,
  serveWithDashboard,
  shootBoth,
} from './helpers/browser.ts';

/**
 * Every view of the dashboard, as a person sees it: light and dark at 1280 px, and a phone (390 x 844):
 * one column, the header with the run's state kept on top, the views as tabs, nothing wider than the
 * screen. The screenshots go to test/web/screenshots/ to be looked at.
 */
needChromium('test/clients/web/views.e2e.test.ts');
const { temps } = e2eResources();

const GREET = `import { readFile } from 'node:fs/promises';

/** Loads the greeting. */
export async function greet(name: string): Promise<string> {
  const template = await readFile('greeting.txt', 'utf8');
  // Replace the placeholder.
  return template.replace('{name}', name) + 42;
}
`;
const PLAN = `name: demo
agent: builtin
codons:
  - id: design
    name: Design the API
    prompt: Do design.
  - id: build
    name: Build it
    prompt: Do build.
  - id: polish
    name: Polish
    prompt: Do polish.
`;
const SCRIPT = `tracks:
  - name: design
    match: { firstUser: "Do design." }
    turns:
      - content:
          - text: Writing the module.
          - tool_use: { name: Write, input: { file_path: src/greet.ts, content: ${JSON.stringify(GREET)} } }
      - content:
          - text: Done.
  - name: build
    match: { firstUser: "Do build." }
    turns:
      - content:
          - tool_use: { name: Edit, input: { file_path: src/greet.ts, old_string: "  return template.replace('{name}', name) + 42;", new_string: "  const text = template.replace('{name}', name);\\n  return text.trim();" } }
      - content:
          - tool_use: { name: Write, input: { file_path: README.md, content: "# Greet\\n\\nSays hello.\\n" } }
      - content:
          - text: Built.
  - name: polish
    match: { firstUser: "Do polish." }
    turns:
      - content:
          - tool_use: { name: Bash, input: { command: "sleep 987654", timeout: 600000 } }
turns: []
`;

describe.skipIf(!HAVE_CHROMIUM)('the dashboard’s views', { timeout: 120_000 }, () => {
  const { newPage, problems } = browserResources();

  async function serve() {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, PLAN, SCRIPT);
    return serveWithDashboard(files.plan, join(t.path, 'exec'), [
      '--no-autostart',
      '--scripted-provider',
      files.script,
    ]);
  }
  const status = (page: Page, codon: string, s: string) =>
    page.waitForSelector(`[data-testid="codon-${codon}"][data-status="${s}"]`);

  it('light and dark at 1280 px: empty, then each view of a run with changes', async () => {
    const { dashboard } = await serve();
    const page = await newPage();
    await page.goto(dashboard);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    // Nothing started: the overview says what to do.
    await page.waitForSelector('[data-testid="empty-codons"]:has-text("Press n")');
    await shootBoth(page, 'overview-empty');
    await page.keyboard.press('4');
    await page.waitForSelector('[data-testid="empty-cost"]:has-text("Nothing spent yet")');
    await page.keyboard.press('1');

    await page.keyboard.press('n');
    await status(page, 'design', 'completed');
    await page.keyboard.press('n');
    await status(page, 'build', 'completed');
    await page.keyboard.press('n');
    await status(page, 'polish', 'running');
    expect(await page.locator('[data-testid="run-pill"]').getAttribute('class')).toContain('st-running');
    expect(await page.locator('[data-testid="codon-build"] .pill').getAttribute('class')).toContain(
      'st-passed',
    );
    await page.waitForSelector('[data-testid="empty-codons"]', { state: 'detached' });
    await shootBoth(page, 'overview');

    await page.keyboard.press('2');
    await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
    await page
      .locator('[data-testid="activity-row"][data-kind="tool"]')
      .first()
      .locator('[data-testid="tool-toggle"]')
      .click();
    // The tool's input is JSON, highlighted: its keys and strings are coloured spans.
    await page.waitForSelector('.detail pre[data-language="json"] .hljs-attr');
    await shootBoth(page, 'activity');

    await page.keyboard.press('1');
    await page.click('[data-testid="codon-build"]');
    await page.keyboard.press('3');
    const greet = page.locator('[data-testid="diff-file"][data-path="src/greet.ts"]');
    await greet.waitFor();
    // TypeScript, highlighted; the Markdown file too; each by its extension.
    expect(await greet.locator('.hljs-keyword').first().textContent()).toBe('export');
    expect(await page.locator('[data-testid="diff-file"][data-path="README.md"] .hljs-section').count()).toBe(
      1,
    );
    await page.waitForSelector('[data-testid="empty-comments"]:has-text("click a line number")');
    await shootBoth(page, 'changes');
    await page.click('[data-testid="diff-layout"]');
    await greet.locator('.split').waitFor();
    await shootBoth(page, 'changes-split');
    await page.click('[data-testid="diff-layout"]');

    await page.keyboard.press('4');
    await page.waitForSelector('[data-testid="chart-cost"]');
    await page.waitForSelector('[data-testid="no-sentinel-cost"]');
    await shootBoth(page, 'cost');
    await page.keyboard.press('5');
    await page.waitForSelector('[data-testid="view-fleet"] [data-testid="fleet-row"]');
    await shootBoth(page, 'fleet');

    // The theme button pins dark whatever the system says, and auto gives it back.
    const theme = (value: string | undefined) =>
      page.waitForFunction((v) => document.documentElement.dataset.theme === v, value);
    await page.click('[data-testid="theme-toggle"]');
    await theme('light');
    await page.click('[data-testid="theme-toggle"]');
    await theme('dark');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await background();
    await page.click('[data-testid="theme-toggle"]');
    await theme(undefined);
    expect(await background()).not.toBe(dark);
    expect(problems(page)).toEqual([]);
  });

  it('a phone: one column, the header on top, tabs to every view, nothing wider than the screen', async () => {
    const { dashboard } = await serve();
    const page = await newPage(PHONE);
    await page.goto(dashboard);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    // Nothing runs: the header's primary action starts the next codon.
    await page.click('[data-testid="primary-next"]');
    await status(page, 'design', 'completed');
    await page.click('[data-testid="primary-next"]');
    await status(page, 'build', 'completed');
    await page.click('[data-testid="codon-build"]');
    expect(await overflowsSideways(page)).toBe(false);
    await shootBoth(page, 'phone-overview');
    for (const view of ['activity', 'changes', 'cost', 'fleet', 'overview']) {
      await page.click(`[data-testid="tab-${view}"]`);
      await page.waitForSelector(`[data-testid="view-${view}"]`);
      if (view === 'changes')
        await page.waitForSelector('[data-testid="diff-file"][data-path="src/greet.ts"]');
      expect(await overflowsSideways(page), `${view} overflows sideways`).toBe(false);
      if (view === 'activity' || view === 'changes') await shootBoth(page, `phone-${view}`);
      // The header stays on top as the view scrolls.
      await page.locator(`[data-testid="view-${view}"]`).evaluate((s) => s.scrollTo(0, 10_000));
      expect((await page.locator('header').boundingBox())?.y).toBe(0);
    }
    // A diff's code scrolls inside its box, not the page.
    await page.click('[data-testid="tab-changes"]');
    const code = page.locator('[data-testid="diff-file"][data-path="src/greet.ts"] .code-scroll');
    expect(await code.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    expect(await overflowsSideways(page)).toBe(false);
    expect(problems(page)).toEqual([]);
  });
});
