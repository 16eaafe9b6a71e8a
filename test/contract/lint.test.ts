/**
 * The generated OpenAPI document under two linters nobody here wrote: Redocly CLI (recommended rules) and Spectral
 * (spectral:oas), each with the committed ruleset of this folder. Both must find nothing: no error, no warning. A rule
 * that does not fit is turned off in the ruleset by name, with a comment saying why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_DIR, runTool, toolBin, writeDocument } from './tools.js';

let documentPath: string;
beforeAll(() => {
  documentPath = writeDocument().path;
});

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}
interface SpectralResult {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

// The two linters run side by side (each is a child process).
describe.concurrent('the OpenAPI document under third-party linters', () => {
  it('redocly lint (recommended, test/contract/redocly.yaml): 0 errors, 0 warnings', async () => {
    const run = await runTool(toolBin('@redocly/cli', 'redocly'), [
      'lint',
      documentPath,
      '--config',
      join(CONTRACT_DIR, 'redocly.yaml'),
      '--format',
      'json',
    ]);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: RedoclyProblem[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.code).toBe(0);
  });

  it('spectral lint (spectral:oas, test/contract/.spectral.yaml): no result at all', async () => {
    const run = await runTool(toolBin('@stoplight/spectral-cli', 'spectral'), [
      'lint',
      documentPath,
      '--ruleset',
      join(CONTRACT_DIR, '.spectral.yaml'),
      '--format',
      'json',
      '--fail-severity',
      'hint',
    ]);
    // The JSON report comes first; spectral may append a line of prose after it.
    const json = run.stdout.slice(0, run.stdout.lastIndexOf(']') + 1);
    const results = JSON.parse(json) as SpectralResult[];
    expect(results.map((r) => `${r.severity} ${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
  });

  it('turns a rule off only with the reason beside it', () => {
    for (const file of ['redocly.yaml', '.spectral.yaml']) {
      const lines = readFileSync(join(CONTRACT_DIR, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (!/:\s*(off|false)\s*$/.test(line)) return;
        expect(
          lines[index - 1]?.trim().startsWith('#'),
          `${file}:${index + 1} ${line.trim()} has no reason above it`,
        ).toBe(true);
      });
    }
  });
});
