import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/setup/sequencer.js';

/** Files that measure their own process (its heap), which other files in the same process would disturb. */
const OWN_PROCESS = ['test/reference/world/laziness.test.ts'];
/** Put back what a file changed in its process, release its fixtures; with VWH_TEST_TIMES, record its times. */
const SETUP = ['test/setup/isolation.ts', 'test/setup/cpu-time.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // dist/ built from the current src/ before any file runs (many tests run the built CLI): built when missing or
    // stale, the suite stopped when the build fails; no test skips for want of it.
    globalSetup: ['test/setup/build.ts'],
    // Two files at a time even on a 2-core box (vitest's default there is one): most files wait on DuckDB, HTTP or a
    // child process as much as they compute, and the soak then runs beside the rest instead of after it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          // No process per file: a worker runs file after file with its modules loaded once. With a fresh process
          // per file the suite took 1,329 s of CPU (user + sys), 115 s of it importing (vitest's `import` figure),
          // and 704 s of wall time; without, 1,159 s of CPU, 17 s importing, 615 s (2-core machine, no other load,
          // 2026-11-27). What a file changes in its process (environment, working directory, spies) is put back
          // when it ends (test/setup/isolation.ts).
          isolate: false,
          setupFiles: SETUP,
        },
      },
      // laziness.test.ts measures heap growth per cached answer: 47 bytes in a process of its own, 94 after other
      // files had run in it.
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true, setupFiles: SETUP } },
      // The benchmarks' own code (bench/), tested beside it: `npm test` runs it with the rest (so CI does), `npm run
      // bench:test` alone.
      {
        extends: true,
        test: { name: 'bench', include: ['bench/**/*.test.ts'], isolate: false, setupFiles: SETUP },
      },
    ],
  },
});
