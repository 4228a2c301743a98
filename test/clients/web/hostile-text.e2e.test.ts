import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * The dashboard (dist-web/, `npm run build:web`) in Debian's chromium, showing a run whose plan names
 * its codon with terminal escapes and whose agent writes a file with a right-to-left override in its
 * name and content: the page shows stand-ins, never the characters. Skipped without chromium outside
 * CI, as test/clients/web/dashboard.e2e.test.ts is.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const WAIT = 30_000;

/** ESC, BEL and every other C0 control but LF and TAB, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const NAME_YAML = '"x\\e]0;pwned\\a\\e[2J\\u202eevil"';
const NAME_SHOWN = 'x␛]0;pwned␇␛[2J<U+202E>evil';
const FILE = 'notes\u202etxt.md';
const PLAN = `name: hostile\nagent: builtin\ncodons:\n  - id: one\n    name: ${NAME_YAML}\n    prompt: Do one.\n`;
const SCRIPT = `turns:
  - content:
      - tool_use: { name: Write, input: { file_path: ${JSON.stringify(FILE)}, content: "a\\u202eb" } }
  - content:
      - text: Wrote it.
`;

const { temps } = e2eResources();

describe.skipIf(!HAVE_CHROMIUM)('the dashboard of hostile names', { timeout: 90_000 }, () => {
  let browser: Browser | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist-web/index.html')))
      throw new Error('dist-web/ missing: npm run build:web');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
  });

  it('shows stand-ins in the codon table, the Changes tree, the diff and the tool view', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, PLAN, SCRIPT);
    const server = await startServer(files.plan, join(t.path, 'exec'), [
      '--scripted-provider',
      files.script,
      '--web',
      '--web-port',
      '0',
    ]);
    await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', WAIT);
    const dashboard = /^dashboard (http:\S+)$/m.exec(server.stderr())![1]!;
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    await page.goto(dashboard);

    const row = page.locator('[data-testid="codon-one"][data-status="completed"]');
    await row.waitFor();
    const name = await row.locator('[data-testid="codon-name"]').textContent();
    expect(name).toBe(NAME_SHOWN);

    await page.click('[data-testid="tab-changes"]');
    const tree = page.locator('[data-testid="file-tree"]');
    await tree.locator('button:has-text("notes<U+202E>txt.md")').waitFor();
    const diff = page.locator('[data-testid="diff-file"]');
    await diff.waitFor();
    expect(await diff.locator('[data-testid="diff-file-name"]').textContent()).toBe('notes<U+202E>txt.md');
    expect(await diff.textContent()).toContain('a<U+202E>b');

    await page.click('[data-testid="tab-activity"]');
    await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
    const tool = page.locator('[data-testid="activity-row"][data-kind="tool"]').first();
    await tool.locator('[data-testid="tool-toggle"]').click();
    const result = page.locator('[data-testid="tool-result"]');
    await result.waitFor();
    expect(await result.textContent()).toContain('notes<U+202E>txt.md');
    const activity = await page.locator('[data-testid="view-activity"]').textContent();
    expect(activity).toContain(NAME_SHOWN);

    // Nowhere on the page, whichever tab drew it.
    for (const tab of ['overview', 'changes', 'activity']) {
      await page.click(`[data-testid="tab-${tab}"]`);
      await page.waitForSelector(`[data-testid="view-${tab}"]`);
      expect(await page.locator('body').textContent()).not.toMatch(RAW);
    }
  });
});
