import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * The page bundles no zod: its client checks each frame's envelope by hand (src/core/client/envelope-frame.ts).
 * Between the page and a real server, frames that are no event are slipped in (live, and one inside
 * the history's last batch): each is refused with a console error saying why, none is shown, and
 * a valid event after them is. Skipped without chromium outside CI, as dashboard.e2e.test.ts is.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const WAIT = 30_000;

const { temps } = e2eResources();
const at = () => new Date().toISOString();

describe.skipIf(!HAVE_CHROMIUM)('the dashboard given malformed frames', { timeout: 90_000 }, () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist-web/index.html')))
      throw new Error('dist-web/ missing: npm run build:web');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('refuses each with a clear console error, shows none of them, and goes on', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, simplePlan(['one']), 'turns: []\n');
    const server = await startServer(files.plan, join(t.path, 'exec'), [
      '--no-autostart',
      '--scripted-provider',
      files.script,
      '--web',
      '--web-port',
      '0',
    ]);
    await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', WAIT);
    const dashboard = /^dashboard (http:\S+)$/m.exec(server.stderr())![1]!;
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT);
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.routeWebSocket(server.url, (ws) => {
        const real = ws.connectToServer();
        ws.onMessage((m) => real.send(m));
        real.onMessage((m) => {
          const frame = JSON.parse(String(m)) as {
            type: string;
            data: { events?: unknown[]; hasMore?: boolean };
          };
          if (frame.type !== 'history.batch' || frame.data.hasMore) return ws.send(m);
          // The history's last batch, with an event without a timestamp among its own.
          frame.data.events!.push({
            id: 'bad-batch',
            type: 'info',
            data: { message: 'MALFORMED in a batch' },
          });
          ws.send(JSON.stringify(frame));
          ws.send('MALFORMED not json');
          ws.send(JSON.stringify({ id: 'bad-1', timestamp: at(), type: 'info', data: 'MALFORMED data' }));
          ws.send(JSON.stringify({ timestamp: at(), type: 'info', data: { message: 'MALFORMED no id' } }));
          ws.send(
            JSON.stringify({
              id: 'bad-3',
              timestamp: at(),
              type: 'codon.exploded',
              data: { message: 'MALFORMED' },
            }),
          );
          ws.send(
            JSON.stringify({
              id: 'good-1',
              timestamp: at(),
              type: 'info',
              data: { message: 'a valid note after them' },
            }),
          );
        });
      });
      await page.goto(dashboard);
      await page.click('[data-testid="tab-activity"]');
      await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
      await page.locator('[data-testid="view-activity"]:has-text("a valid note after them")').waitFor();

      const refused = errors.filter((e) => e.startsWith(`ribosome: refused a frame from ${server.url}: `));
      expect(refused.map((e) => e.slice(`ribosome: refused a frame from ${server.url}: `.length))).toEqual([
        'not a server event: its timestamp must be a string, not undefined',
        'MALFORMED not json',
        'info: its data must be an object, not string',
        'not a server event: its id must be a string, not undefined',
        'unknown event type "codon.exploded"',
      ]);
      expect(await page.locator('body').textContent()).not.toContain('MALFORMED');
      // The codon table is still drawn from the history.
      await page.click('[data-testid="tab-overview"]');
      await page.locator('[data-testid="codon-one"]').waitFor();
    } finally {
      await context.close();
    }
  });
});
