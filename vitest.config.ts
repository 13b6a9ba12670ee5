import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'connectors/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-fast-check.ts'],
  },
});
