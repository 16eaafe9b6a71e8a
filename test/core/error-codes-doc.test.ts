/** Every bracketed error code vwh can print is listed in docs/errors.md with its exit code. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VwhError, type VwhErrorCode } from '../../src/core/errors.js';

describe('docs/errors.md', () => {
  it('lists each code of VwhErrorCode, with the exit code the CLI maps it to', () => {
    const source = readFileSync('src/core/errors.ts', 'utf8');
    const union = /export type VwhErrorCode =([^;]+);/.exec(source)?.[1] ?? '';
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1] as VwhErrorCode);
    expect(codes.length).toBeGreaterThan(15);
    const doc = readFileSync('docs/errors.md', 'utf8');
    for (const code of codes) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      expect(row, code).toBeDefined();
      expect(row?.split('|')[2]?.trim().split(' ')[0], code).toBe(String(new VwhError(code, 'x').exitCode));
    }
  });
});
