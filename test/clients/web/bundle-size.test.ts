import { describe, expect, it } from 'vitest';
import { bundleWeb, describeReport, WEB_BUNDLE_BUDGET } from '../../../scripts/build-web.ts';

/** The dashboard's page stays small (issue 35, docs/dashboard.md#size): bundled in memory, as `npm run build:web` does. */
describe("the web dashboard's bundle", () => {
  it(`weighs at most ${WEB_BUNDLE_BUDGET / 1024} KiB minified, and carries neither zod nor React`, async () => {
    const report = await bundleWeb();
    const words = describeReport(report);
    expect(report.bytes, words).toBeLessThanOrEqual(WEB_BUNDLE_BUDGET);
    const packages = report.inputs.map((i) => i.input).filter((i) => i.startsWith('node_modules/'));
    // The browser client checks frames by hand (src/core/client/envelope-frame.ts); Preact stands in for React.
    expect(packages, words).not.toContain('node_modules/zod');
    expect(packages, words).not.toContain('node_modules/react');
    expect(packages, words).not.toContain('node_modules/react-dom');
    expect(packages).toContain('node_modules/preact');
  });
});
