/**
 * Partial parsing (src/models/parse-cache.ts): a load with `parseCache` writes the two parses' answers beside the
 * artifacts, and a new process (its memos forgotten) that loads with the file parses nothing that did not change,
 * and gets the same project.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TABLES_READ } from '../../src/models/dependencies.js';
import { HEADERS } from '../../src/models/header.js';
import { cacheVersion, forgetParses } from '../../src/models/parse-cache.js';
import { loadProject, shippedModelsDir } from '../../src/models/project.js';
import type { Project } from '../../src/models/types.js';
import { tempDir } from '../fixtures.js';

const dir = tempDir('vwh-parse-cache-').dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a load decided for each model and test: its config, parents, sources, columns read and fingerprint. */
function decided(project: Project) {
  return {
    models: [...project.models.values()].map((m) => ({
      id: m.id,
      config: m.config,
      parents: m.parents,
      readParents: m.readParents,
      sources: m.sources,
      parentColumns: [...m.parentColumns].map(([k, v]) => [k, v === '*' ? v : [...v].sort()]),
      fingerprint: m.fingerprint,
    })),
    tests: project.tests.map((t) => ({ id: t.id, parents: t.parents, sources: t.sources, fingerprint: t.fingerprint })),
  };
}

const parses = () => HEADERS.computed + TABLES_READ.computed;

describe('the parse cache', () => {
  it('a new process loads the project from it without parsing, and decides the same', async () => {
    const models = join(dir, 'models');
    cpSync(shippedModelsDir(), models, { recursive: true });
    const cache = join(dir, 'target', 'partial_parse.json');
    forgetParses();
    const first = await loadProject(models, { parseCache: cache });
    const written = JSON.parse(readFileSync(cache, 'utf8')) as { version: string; memos: Record<string, unknown[]> };
    expect(written.version).toBe(cacheVersion());
    expect(written.memos.headers?.length).toBeGreaterThan(60);
    expect(written.memos.tables_read?.length).toBe(first.models.size + first.tests.length);

    forgetParses();
    const before = parses();
    const again = await loadProject(models, { parseCache: cache });
    expect(parses()).toBe(before);
    expect(decided(again)).toEqual(decided(first));

    // One file changed: only its two parses run, and the file keeps the new text's answers.
    const trend = join(models, 'marts', 'brand_visibility_trend.sql');
    writeFileSync(trend, readFileSync(trend, 'utf8').replace('tags: [daily]', 'tags: [daily, edited]'));
    forgetParses();
    const edited = await loadProject(models, { parseCache: cache });
    expect(parses() - before).toBe(1);
    expect(edited.models.get('marts.brand_visibility_trend')?.config.tags).toEqual(['daily', 'edited']);
    forgetParses();
    const after = parses();
    await loadProject(models, { parseCache: cache });
    expect(parses()).toBe(after);
  });

  it('a target that cannot take the file leaves the load as it was', async () => {
    const models = join(dir, 'models-3');
    cpSync(shippedModelsDir(), models, { recursive: true });
    // the cache's folder is a file: nothing can be written under it
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'not a folder');
    const project = await loadProject(models, { parseCache: join(blocked, 'partial_parse.json') });
    expect(project.models.has('marts.brand_visibility_trend')).toBe(true);
    expect(readFileSync(blocked, 'utf8')).toBe('not a folder');
  });

  it('a file of other parse code, or not JSON, is ignored and replaced', async () => {
    const models = join(dir, 'models-2');
    cpSync(shippedModelsDir(), models, { recursive: true });
    const cache = join(dir, 'target-2', 'partial_parse.json');
    await loadProject(models, { parseCache: cache });
    const written = JSON.parse(readFileSync(cache, 'utf8')) as { version: string };
    for (const text of [JSON.stringify({ ...written, version: 'duckdb v0.0.1; other' }), '{"version": trunc']) {
      writeFileSync(cache, text);
      forgetParses();
      const before = parses();
      await loadProject(models, { parseCache: cache });
      expect(parses() - before).toBeGreaterThan(100);
      expect(JSON.parse(readFileSync(cache, 'utf8')).version).toBe(cacheVersion());
    }
  });
});
