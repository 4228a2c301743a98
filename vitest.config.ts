import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
    pool: 'forks',
    // Two cores: e2e files spawn real processes, so keep file-level parallelism modest.
    maxWorkers: 2,
  },
});
