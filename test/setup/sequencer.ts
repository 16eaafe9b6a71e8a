/**
 * The order test files start in (vitest.config.ts's sequence.sequencer): vitest's own (failed first, then the
 * slowest of the last run, or, with no record of one as on a fresh clone in CI, the largest files first), but the
 * files known to take longest start before all others. With two workers the suite ends when its longest file does
 * at the earliest: the soak, a third of the suite's wall time, started ninth by size on a fresh clone.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first, as measured (docs/lab/2026-12-suite-time.md): the soak, the truth file, the incremental build. */
const LONGEST = ['test/ops/soak.test.ts', 'test/analytics/truth.test.ts', 'test/analytics/incremental-build.test.ts'];

const rank = (spec: TestSpecification): number => {
  const at = LONGEST.findIndex((path) => spec.moduleId.endsWith(path));
  return at < 0 ? LONGEST.length : at;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
