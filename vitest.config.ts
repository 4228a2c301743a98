import { defineConfig } from 'vitest/config';

/**
 * The projects, told apart by file name (the part before `.test.ts`):
 * - unit: `*.test.ts`: no child process, no server, no browser; a developer runs it in about 20 s
 *   (`npm run test:unit`, which runs `unit-isolated` too).
 * - e2e: `*.e2e.test.ts`: whole processes, servers and real git on loopback.
 * - browser: the web dashboard in Debian's Chromium (`test/clients/web/*.e2e.test.ts`, `*.browser.test.ts`).
 * - agents: `*.agents.test.ts` and `test/agents/conformance/`: real agent CLIs (Claude Code, Codex,
 *   Gemini CLI, opencode); a missing one is skipped, or fails with CI set.
 * `npm test` runs them all.
 *
 * Unit files share one module graph per worker (isolate: false, about seven times faster here), so a
 * unit file must leave no module state behind, nor need it fresh. These do: they set FORCE_COLOR before
 * chalk loads, mock a built-in module, or read the event id clock (monotonic: ids another file made
 * under a fake clock stay ahead of the real one); they run isolated, in `unit-isolated`.
 */
const UNIT_ISOLATED = [
  'test/execution/journal/event-id.test.ts',
  'test/clients/tui/budget.test.ts',
  'test/clients/tui/no-color.test.ts',
  'test/platform/files/file-tree-unreadable.test.ts',
];
const BROWSER = ['test/clients/web/**/*.e2e.test.ts', 'test/**/*.browser.test.ts'];
const AGENTS = ['test/**/*.agents.test.ts', 'test/agents/conformance/**/*.test.ts'];

export default defineConfig({
  test: {
    // Every project extends these.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
    // Fails the run when a test left an agent, rig step, gate or sandbox running (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Two cores: e2e files spawn real processes, so keep file-level parallelism modest.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/**/*.e2e.test.ts', ...BROWSER, ...AGENTS, ...UNIT_ISOLATED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: UNIT_ISOLATED } },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/**/*.e2e.test.ts'], exclude: [...BROWSER, ...AGENTS] },
      },
      { extends: true, test: { name: 'browser', include: BROWSER } },
      { extends: true, test: { name: 'agents', include: AGENTS } },
    ],
  },
});
