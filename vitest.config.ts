import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time even on a 2-core box (vitest's default there is one): most files wait on DuckDB, HTTP or a
    // child process as much as they compute, and the soak (about 3.5 minutes) then runs beside the rest instead of
    // after it: the suite took 5.5 minutes instead of 9 on the 2-core CI machine, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
