import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBatchDashboard } from '../../../src/clients/batch/fleet/batch-dashboard.ts';
import { batchSummary, jobResult, metrics, writeSummary } from '../../helpers/batch-summary.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { bounded, ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * A batch's fleet in the dashboard (`ribosome web --batch`, `ribosome batch --web`), in Debian's
 * chromium: the jobs come from summary.json (written here as the runner writes it), a running job's
 * server is a real `ribosome run` found by its runtime lock. CI installs chromium; elsewhere skipped.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SCREENSHOTS = join(ROOT, 'test/web/screenshots');
const WAIT = 20_000;

if (!HAVE_CHROMIUM && process.env.CI !== 'true')
  console.warn(`test/clients/web/batch-fleet.e2e.test.ts skipped: no ${CHROMIUM} (apt-get install chromium)`);

describe.runIf(!HAVE_CHROMIUM && process.env.CI === 'true')('batch fleet in a browser (CI)', () => {
  it('needs chromium', () => {
    throw new Error(`${CHROMIUM} is missing: CI must apt-get install chromium`);
  });
});

const { temps } = e2eResources();

describe.skipIf(!HAVE_CHROMIUM)('batch fleet in a browser', { timeout: 60_000 }, () => {
  let browser: Browser | undefined;
  let stopDashboard: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist-web/index.html')))
      throw new Error('dist-web/ missing: npm run build:web');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await stopDashboard?.();
    await browser?.close();
  });

  const row = (page: Page, id: string) => page.locator(`[data-testid="batch-job"][data-id="${id}"]`);

  it('lists the jobs from summary.json, opens a running one only when asked, follows the summary, and says when its server is gone', async () => {
    const t = tempDir();
    temps.push(t);
    const dir = join(t.path, 'batch');
    const files = writePlanAndScript(t.path, simplePlan(['one', 'two']), 'turns: []\n');
    // Jobs a and c run (their plans wait for a client: --no-autostart); c is not in the summary yet.
    const [a, c] = await Promise.all(
      ['a', 'c'].map((id) =>
        startServer(files.plan, join(dir, 'jobs', id), [
          '--no-autostart',
          '--scripted-provider',
          files.script,
          '--port',
          '0',
        ]),
      ),
    );
    const started = new Date(Date.now() - 5_000).toISOString();
    const running = (index: number, id: string) =>
      jobResult(index, id, 'running', {
        startedAt: started,
        metrics: metrics(0, 2, 0.0042, {
          lastEvent: { type: 'server.ready', at: started, text: `${id}: waiting for a client` },
        }),
      });
    const passed = jobResult(1, 'b', 'passed', {
      reason: 'every codon passed',
      startedAt: started,
      durationMs: 4_000,
      metrics: metrics(2, 2, 0.02),
    });
    writeSummary(dir, batchSummary(dir, [running(0, 'a'), passed]));
    const dashboard = await startBatchDashboard({ dir, host: '127.0.0.1', port: 0, readonly: false });
    stopDashboard = dashboard.stop;

    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    const sockets: string[] = [];
    // The browser names a socket by its URL with a path: `ws://HOST:PORT/`.
    page.on('websocket', (ws) => sockets.push(ws.url().replace(/\/$/, '')));
    try {
      await page.goto(dashboard.url);
      await row(page, 'a').locator('[data-testid="job-open"]').waitFor();
      expect(await page.locator('[data-testid="batch-job"]').count()).toBe(2);
      const header = page.locator('[data-testid="batch-header"]');
      expect(await header.textContent()).toContain('batch fleet-test');
      expect(await page.locator('[data-testid="batch-counts"]').textContent()).toBe('1 running · 1 passed');
      expect(await page.locator('[data-testid="batch-spend"]').textContent()).toBe('spent $0.0242');
      expect(await row(page, 'a').getAttribute('data-state')).toBe('running');
      expect(await row(page, 'a').locator('[data-testid="job-codons"]').textContent()).toBe('0/2');
      expect(await row(page, 'a').textContent()).toContain('a: waiting for a client');
      // The finished job: no open button, and what shows its record instead.
      expect(await row(page, 'b').locator('[data-testid="job-open"]').count()).toBe(0);
      expect(await row(page, 'b').locator('[data-testid="job-hint"]').textContent()).toBe(
        `ended: see it with ribosome log --execution ${dir}/jobs/b`,
      );
      expect(await row(page, 'b').locator('[data-testid="job-state"]').textContent()).toBe(
        'passed (every codon passed)',
      );
      // Nothing is connected until a job is opened.
      expect(sockets).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'batch-fleet.png') });

      // Open a: its dashboard, its codons.
      await row(page, 'a').locator('[data-testid="job-open"]').click();
      await page.waitForSelector('h1:has-text("fleet-test / a")');
      await page.waitForSelector('[data-testid="codon-one"][data-status="pending"]');
      await page.waitForSelector('[data-testid="codon-two"][data-status="pending"]');
      expect(sockets).toEqual([a!.url]);

      // The summary changes: c appears, running. The page shows it without a reload.
      await page.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
      writeSummary(dir, batchSummary(dir, [running(0, 'a'), passed, running(2, 'c')]));
      await page.click('[data-testid="tab-fleet"]');
      await row(page, 'c').locator('[data-testid="job-open"]').waitFor();
      expect(await page.locator('[data-testid="batch-counts"]').textContent()).toBe('2 running · 1 passed');
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
        true,
      );
      // Listed is not connected: still a's socket only.
      expect(sockets).toEqual([a!.url]);

      // a's run ends (the runner then writes it passed): its pane says so and leads back to the fleet.
      await page.click('[data-testid="tab-overview"]');
      await page.waitForSelector('[data-testid="codon-one"]');
      a!.kill('SIGTERM');
      expect((await bounded(a!.exited, WAIT))?.code).toBe(0);
      writeSummary(
        dir,
        batchSummary(dir, [
          jobResult(0, 'a', 'passed', { reason: 'every codon passed', metrics: metrics(0, 2, 0.0042) }),
          passed,
          running(2, 'c'),
        ]),
      );
      const gone = page.locator('[data-testid="job-gone"]');
      await page.waitForSelector('[data-testid="job-gone"]:has-text("job a is not running: it passed")');
      expect(await gone.textContent()).toContain(`ribosome log --execution ${dir}/jobs/a`);
      await page.screenshot({ path: join(SCREENSHOTS, 'batch-job-gone.png') });
      await page.click('[data-testid="back-to-fleet"]');
      await row(page, 'a').locator('[data-testid="job-hint"]').waitFor();
      expect(await page.locator('[data-testid="batch-counts"]').textContent()).toBe('1 running · 2 passed');

      // c opens, from its own server.
      await row(page, 'c').locator('[data-testid="job-open"]').click();
      await page.waitForSelector('h1:has-text("fleet-test / c")');
      await page.waitForSelector('[data-testid="codon-one"][data-status="pending"]');
      expect(sockets.filter((u) => u !== a!.url)).toEqual([c!.url]);
      // What the page logged: at most a's reconnection refused once its server went away.
      expect(problems.filter((p) => !/status of 409|WebSocket connection to .* failed/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
