import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { codonScript, simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { ROOT, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * The dashboard (dist-web/, `npm run build:web`) in Debian's chromium against real servers. CI
 * installs chromium (.ci/run) and fails without it; elsewhere the file is skipped with a hint.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SCREENSHOTS = join(ROOT, 'test/web/screenshots');
const WAIT = 30_000;

if (!HAVE_CHROMIUM && process.env.CI !== 'true')
  console.warn(`test/clients/web/dashboard.e2e.test.ts skipped: no ${CHROMIUM} (apt-get install chromium)`);

describe.runIf(!HAVE_CHROMIUM && process.env.CI === 'true')('dashboard in a browser (CI)', () => {
  it('needs chromium', () => {
    throw new Error(`${CHROMIUM} is missing: CI must apt-get install chromium`);
  });
});

const { temps } = e2eResources();

describe.skipIf(!HAVE_CHROMIUM)('dashboard in a browser', { timeout: 60_000 }, () => {
  let browser: Browser | undefined;
  const pages: Page[] = [];
  /** What went wrong in the page: uncaught exceptions and console errors (a refused upgrade is one). */
  const problems = new Map<Page, string[]>();

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist-web/index.html')))
      throw new Error('dist-web/ missing: npm run build:web');
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((p) => p.context().close()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    pages.push(page);
    const seen: string[] = [];
    problems.set(page, seen);
    page.on('pageerror', (e) => seen.push(`uncaught: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') seen.push(`console: ${m.text()}`);
    });
    return page;
  }

  function setup(script: string, ids = ['one', 'two', 'three']) {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, simplePlan(ids), script);
    return { plan: files.plan, exec: join(t.path, 'exec'), script: files.script };
  }

  /** `ribosome run --web --web-port 0`: the server and the dashboard address it printed. */
  async function runWithWeb(script: string, extra: string[] = []) {
    const s = setup(script);
    const server = await startServer(s.plan, s.exec, [
      '--no-autostart',
      '--scripted-provider',
      s.script,
      '--web',
      '--web-port',
      '0',
      ...extra,
    ]);
    await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', WAIT);
    const dashboard = new URL(/^dashboard (http:\S+)$/m.exec(server.stderr())![1]!);
    return { server, dashboard };
  }

  /** `ribosome web URL... --port 0`: the address it printed on stdout. */
  async function webOnly(urls: string[], extra: string[] = []): Promise<string> {
    const web = runCli(['web', ...urls, '--port', '0', ...extra]);
    await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', WAIT);
    return /^dashboard (http:\S+)$/m.exec(web.stdout())![1]!;
  }

  const status = (page: Page, codon: string, s: string) =>
    page.waitForSelector(`[data-testid="codon-${codon}"][data-status="${s}"]`);

  it('fills in live; a tool call shows its result; the diff of a codon shows its file; skip and rollback', async () => {
    const { dashboard } = await runWithWeb(codonScript({ one: 'ok', two: { sleep: 987_651 }, three: 'ok' }));
    const page = await newPage();
    await page.goto(dashboard.href);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    for (const id of ['one', 'two', 'three']) await status(page, id, 'pending');
    // No codon runs: the message box is there, says why it cannot send, and keeps what is typed.
    await page.waitForSelector('[data-testid="message-unavailable"]:has-text("no codon is running")');
    await page.fill('[data-testid="message-text"]', 'look at two.txt first');
    expect(await page.isDisabled('[data-testid="message-send"]')).toBe(true);
    // Live: the page starts the codon and the timeline follows.
    await page.click('[data-testid="control-next"]');
    await status(page, 'one', 'completed');
    // The run's branch is known without listing checkpoints (`c`).
    await page.waitForSelector('[data-testid="run-branch"]:has-text("run/")');

    // The clicked button keeps focus: the keys still work (only text entry swallows them).
    await page.keyboard.press('2');
    await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
    const tool = page.locator('[data-testid="activity-row"][data-kind="tool"]').first();
    await tool.waitFor();
    expect(await tool.textContent()).toContain('Write');
    await page.waitForSelector('[data-testid="tool-result"]', { state: 'detached' });
    await tool.locator('[data-testid="tool-toggle"]').click();
    const result = page.locator('[data-testid="tool-result"]');
    await result.waitFor();
    expect(await result.textContent()).toContain('File created successfully at: one.txt');

    // Codon one's start is the run's initial checkpoint (not in checkpoint.list): its diff still shows.
    await page.click('[data-testid="tab-changes"]');
    const file = page.locator('[data-testid="diff-file"][data-path="one.txt"]');
    await file.waitFor();
    expect(await file.textContent()).toContain('one done');
    expect(await page.locator('[data-testid="diff-file"]').count()).toBe(1);

    // Skip: codon two runs (its agent sleeps), the page skips it.
    await page.click('[data-testid="tab-overview"]');
    await page.click('[data-testid="control-next"]');
    await status(page, 'two', 'running');
    // Two's agent runs (a long tool call): the message typed while idle is still there and goes to it.
    await page.waitForSelector('[data-testid="message-box"]:has-text("message to the agent of two")');
    expect(await page.inputValue('[data-testid="message-text"]')).toBe('look at two.txt first');
    await page.click('[data-testid="message-send"]');
    await page.waitForSelector(
      `[data-testid="control-progress"]:has-text("message sent to two's agent (live)")`,
    );
    expect(await page.inputValue('[data-testid="message-text"]')).toBe('');
    await page.click('[data-testid="control-skip"]');
    await status(page, 'two', 'skipped');
    // Skipping moves on: three runs and ends.
    await status(page, 'three', 'completed');

    // Rollback to the start of one, confirmed: a new run, and the page shows it.
    const firstRun = await page.locator('[data-testid="run-id"]').textContent();
    await page.click('[data-testid="control-rollback"]');
    const target = page.locator('[data-testid="rollback-target"]');
    const options = await target.locator('option').allTextContents();
    await target.selectOption({ index: options.findIndex((o) => o.startsWith('start of one')) });
    await page.click('[data-testid="rollback-next"]');
    expect(await page.locator('[data-testid="rollback-undoes"]').textContent()).toContain('one, two, three');
    await page.click('[data-testid="rollback-confirm"]');
    await page.waitForFunction(
      (was) => {
        const now = document.querySelector('[data-testid="run-id"]')?.textContent;
        return now && now !== '—' && now !== was;
      },
      firstRun,
      { timeout: WAIT },
    );
    await status(page, 'one', 'pending');
    expect(await page.locator('[data-testid="runs"] li').count()).toBe(2);
    // The new run has spent nothing yet: its own cost, the total apart.
    expect(await page.locator('[data-testid="run-cost"]').textContent()).toMatch(/^\$0 \(all 2 runs /);
    // Before the new run took any checkpoint, the changes view offers the earlier run's.
    await page.click('[data-testid="tab-changes"]');
    await page.waitForSelector(`[data-testid="diff-from"] option:has-text("(run ${firstRun})")`, {
      state: 'attached',
    });
    await page.click('[data-testid="tab-overview"]');
    // The new run: one runs again, and its diff (from the new run's initial checkpoint) shows its file.
    await page.click('[data-testid="control-next"]');
    await status(page, 'one', 'completed');
    await page.click('[data-testid="tab-changes"]');
    await file.waitFor();
    expect(await page.locator('[data-testid="diff-file"]').count()).toBe(1);
    expect(problems.get(page)).toEqual([]);
  });

  it('a usage-limit wait: a banner with the reset and the time left, light and dark; n ends it', async () => {
    // Codon one meets a usage limit an hour away (the provider refuses it until then).
    const script = `tracks:\n  - name: one\n    match: { firstUser: "Do one." }\n    turns:\n      - usageLimit: { resetsIn: 3600 }\nturns: []\n`;
    const { dashboard } = await runWithWeb(script);
    const page = await newPage();
    await page.goto(dashboard.href);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    await page.waitForSelector('[data-testid="usage-wait"]', { state: 'detached' });
    await page.click('[data-testid="control-next"]');
    const banner = page.locator('[data-testid="usage-wait"]');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(
      /^waiting for the usage limit of builtin to reset at (?:[A-Z][a-z]{2} )?\d\d:\d\d; starts again at (?:[A-Z][a-z]{2} )?\d\d:\d\d \(in (1 h|1 h 1 m)\) · n \(next\) starts one now$/,
    );
    await page.waitForSelector('[data-testid="codon-one"]:has-text("waiting for usage limit")');
    await page.screenshot({ path: join(SCREENSHOTS, 'usage-wait.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOTS, 'usage-wait-dark.png') });
    // n: the wait ends, and the activity says so (the codon starts again; its limit still holds).
    await page.keyboard.press('n');
    await page.keyboard.press('2');
    await page.waitForSelector(
      '[data-testid="activity-row"]:has-text("one: the usage-limit wait ended (codon.next took over)")',
    );
    expect(problems.get(page)).toEqual([]);
  });

  it('readonly: no controls; the server grants its ticket readonly whatever the page asks, and refuses what it forges', async () => {
    const { server } = await runWithWeb(codonScript({ one: { sleep: 987_652 } }));
    const page = await newPage();
    await page.goto(await webOnly([server.url], ['--readonly']));
    await page.waitForSelector('[data-testid="connection"]:has-text("read-only")');
    await status(page, 'one', 'pending');
    expect(await page.locator('[data-testid="controls"]').count()).toBe(0);
    // Without a ticket the page's origin opens nothing; with its own, asking readandwrite, it gets readonly.
    expect(await openSocket(page, server.url)).toBe('refused');
    const answers = await page.evaluate(async (url) => {
      const asked = await fetch(`ticket?server=0&origin=${encodeURIComponent(location.origin)}`);
      const { ticket } = (await asked.json()) as { ticket: string };
      return new Promise<string[]>((resolve, reject) => {
        const seen: string[] = [];
        const ws = new WebSocket(url, ['ribosome', `ribosome-ticket.${ticket}`]);
        ws.onerror = () => reject(new Error('socket error'));
        ws.onopen = () => ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readandwrite' } }));
        ws.onmessage = (m) => {
          const event = JSON.parse(String(m.data)) as {
            type: string;
            data?: { code?: string; mode?: string };
          };
          if (event.type === 'handshake.response') {
            seen.push(`mode ${event.data?.mode}`);
            for (const [id, type, data] of [
              ['forged-1', 'codon.skip', undefined],
              ['forged-2', 'codon.message', { text: 'rm -rf ~ please' }],
              ['forged-3', 'server.shutdown', { reason: 'from a viewer' }],
            ] as const)
              ws.send(JSON.stringify({ id, type, data }));
          }
          if (event.data?.code) seen.push(event.data.code);
          if (seen.length === 4) resolve(seen);
        };
      });
    }, server.url);
    expect(answers).toEqual([
      'mode readonly',
      'INSUFFICIENT_PERMISSIONS',
      'INSUFFICIENT_PERMISSIONS',
      'INSUFFICIENT_PERMISSIONS',
    ]);
    // Still up, nothing skipped.
    await status(page, 'one', 'pending');
    expect(await openSocket(page, server.url)).toBe('refused');
    expect(problems.get(page)?.filter((p) => !/WebSocket connection to .* failed/.test(p))).toEqual([]);
  });

  it('fleet: every server of `ribosome web` is listed and opens', async () => {
    const a = await runWithWeb(codonScript({ one: 'ok' }));
    const b = await runWithWeb(codonScript({ one: 'ok' }));
    const page = await newPage();
    await page.goto(await webOnly([a.server.url, b.server.url]));
    await page.waitForSelector('[data-testid="view-fleet"]');
    for (const url of [a.server.url, b.server.url])
      await page.waitForSelector(`[data-testid="fleet-row"][data-url="${url}"]:has-text("open")`);
    expect(await page.locator('[data-testid="fleet-row"]').count()).toBe(2);
    await page
      .locator(`[data-testid="fleet-row"][data-url="${b.server.url}"] [data-testid="fleet-open"]`)
      .click();
    await page.waitForSelector(`h1:has-text("${b.server.url}")`);
    await status(page, 'one', 'pending');
    expect(problems.get(page)).toEqual([]);
  });

  it('beyond loopback: the page needs the token, keeps it out of its address and out of cookies', async () => {
    const { dashboard } = await runWithWeb(codonScript({ one: 'ok' }), ['--host', '0.0.0.0']);
    const token = dashboard.searchParams.get('token');
    expect(token).toBeTruthy();
    const base = `http://127.0.0.1:${dashboard.port}`;
    const page = await newPage();
    await page.goto(`${base}/`);
    await page.waitForSelector('text=needs its access token');
    expect((await page.goto(`${base}/?token=wrong-token-of-enough-length`))?.status()).toBe(403);
    // The printed address: the page loads, takes the token out of its address and its client connects.
    problems.get(page)?.splice(0);
    const opened = await page.goto(`${base}/?token=${token}`);
    expect(opened?.status()).toBe(200);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    expect(new URL(page.url()).search).toBe('');
    await status(page, 'one', 'pending');
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // A reload keeps working: the token is in this tab's sessionStorage (this origin only).
    await page.reload();
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    expect(problems.get(page)).toEqual([]);
  });

  it('a page of another local server cannot open the WebSocket nor read the token or a ticket', async () => {
    const { server, dashboard } = await runWithWeb(codonScript({ one: { sleep: 987_653 } }), [
      '--token',
      'the-token-of-this-test-0123',
    ]);
    // The user has the dashboard open in this browser, then visits another local server's page.
    const page = await newPage();
    await page.goto(dashboard.href);
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    const other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>another local tool</title>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const evil = await page.context().newPage();
      const upgrades = upgradeFailures(evil);
      await evil.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      // Its WebSocket is refused (403), with or without a made-up ticket; its loopback origin is not enough.
      expect(await openSocket(evil, server.url)).toBe('refused');
      expect(await openSocket(evil, server.url, ['ribosome', 'ribosome-ticket.made.up'])).toBe('refused');
      await waitFor(() => upgrades().length === 2, 'two refused upgrades on the console', WAIT);
      for (const failure of upgrades()) expect(failure).toMatch(/Unexpected response code: 403/);
      // No cookie carries the token to it; the dashboard's answers are not for it to read.
      expect(await evil.evaluate(() => document.cookie)).toBe('');
      expect(await page.context().cookies()).toEqual([]);
      const reads = await evil.evaluate(async (base) => {
        const tries = [
          `${base}config.json`,
          `${base}ticket?server=0&origin=${encodeURIComponent(location.origin)}`,
        ];
        return Promise.all(
          tries.map((u) =>
            fetch(u).then(
              (r) => `read ${r.status}`,
              () => 'blocked',
            ),
          ),
        );
      }, `${dashboard.origin}/`);
      expect(reads).toEqual(['blocked', 'blocked']);
      // The user's own dashboard still works.
      await status(page, 'one', 'pending');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

/** Opens a WebSocket from the page: `open` once upgraded, `refused` when the upgrade fails. */
function openSocket(page: Page, url: string, protocols: string[] = []): Promise<'open' | 'refused'> {
  return page.evaluate(
    ([u, p]) =>
      new Promise<'open' | 'refused'>((resolve) => {
        const ws = new WebSocket(u, p);
        ws.onopen = () => {
          ws.close();
          resolve('open');
        };
        ws.onerror = () => resolve('refused');
      }),
    [url, protocols] as const,
  );
}

/**
 * Why the page's WebSocket upgrades failed from now on, as the browser says it on the console: a 403
 * is named, a 401 is "HTTP Authentication failed" (the page cannot read an upgrade's status).
 */
function upgradeFailures(page: Page): () => string[] {
  const failures: string[] = [];
  page.on('console', (m) => {
    const failed = /^WebSocket connection to '.*' failed: (.*)$/.exec(m.text());
    if (failed) failures.push(failed[1]!);
  });
  return () => failures;
}
