import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { waitFor } from '../../../helpers/processes.ts';
import { ROOT, runCli, type ServerProcess, startServer } from '../../../helpers/server-process.ts';

/**
 * The dashboard (dist-web/, `npm run build:web`) in Debian's chromium, for the browser tests: CI
 * installs chromium (.ci/run) and fails without it; elsewhere a file is skipped with a hint.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Where the dashboard's screenshots are kept (the path), to look at. */
export const SCREENSHOTS = join(ROOT, 'test/web/screenshots');
export const WAIT = 60_000;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Skips the file without chromium (with a hint), or fails it in CI. */
export function needChromium(file: string): void {
  if (!HAVE_CHROMIUM && process.env.CI !== 'true')
    console.warn(`${file} skipped: no ${CHROMIUM} (apt-get install chromium)`);
  describe.runIf(!HAVE_CHROMIUM && process.env.CI === 'true')(`${file} (CI)`, () => {
    it('needs chromium', () => {
      throw new Error(`${CHROMIUM} is missing: CI must apt-get install chromium`);
    });
  });
}

/**
 * One browser for the file; `newPage` opens a context of its own (closed after each test) and
 * records what went wrong in it: uncaught exceptions and console errors.
 */
export function browserResources() {
  let browser: Browser | undefined;
  const pages: Page[] = [];
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
  async function newPage(viewport = DESKTOP): Promise<Page> {
    if (!browser) throw new Error('no browser: browserResources() registers it in beforeAll');
    const context = await browser.newContext({ viewport });
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
  return { newPage, problems: (page: Page) => problems.get(page) ?? [] };
}

/** `ribosome run PLAN --web --web-port 0 ARGS`: the server and the dashboard's address it printed. */
export async function serveWithDashboard(
  plan: string,
  exec: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ server: ServerProcess; dashboard: string }> {
  const server = await startServer(plan, exec, ['--web', '--web-port', '0', ...args], 30_000, env);
  await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', WAIT);
  return { server, dashboard: /^dashboard (http:\S+)$/m.exec(server.stderr())?.[1] ?? '' };
}

/** Light, then dark: `<name>-light.png` and `<name>-dark.png` (the page is left in light). */
export async function shootBoth(page: Page, name: string): Promise<void> {
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) });
  }
}

/** Whether the page is wider than its window: something overflows sideways. */
export function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** `ribosome web --readonly URL`: the address of a dashboard that may only watch the server. */
export async function readonlyDashboard(url: string): Promise<string> {
  const web = runCli(['web', url, '--port', '0', '--readonly']);
  await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', WAIT);
  return /^dashboard (http:\S+)$/m.exec(web.stdout())?.[1] ?? '';
}
