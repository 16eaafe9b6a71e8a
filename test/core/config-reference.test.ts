/**
 * The config's reference page is generated from its one schema: docs/config.md is what `vwh config reference` prints,
 * every field of the schema is on it, and a config error names the field, what it is for, and the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema, loadConfig } from '../../src/core/config.js';
import { configReference } from '../../src/core/config-reference.js';
import { tempDir } from '../ops/support.js';

const t = tempDir('vwh-config-ref-');
afterAll(() => t.cleanup());

describe('docs/config.md', () => {
  it('is what the generator prints (regenerate: vwh config reference > docs/config.md)', () => {
    expect(readFileSync(resolve(__dirname, '../../docs/config.md'), 'utf8')).toBe(configReference());
  });

  it('lists every field of the schema, each with a description', () => {
    const page = configReference();
    const schema = configJsonSchema() as { properties: Record<string, unknown> };
    for (const field of Object.keys(schema.properties).filter((f) => f !== '$schema')) {
      expect(page).toContain(`| \`${field}\` |`);
    }
    expect(page).toContain(
      '| `teams[].team` | string (required) | team name stored in every row (team_id) and a folder of the lake: letters, digits, _ . : - |',
    );
    expect(page.split('\n').filter((l) => l.endsWith('|  |'))).toEqual([]);
  });
});

describe('a config error', () => {
  const load = (config: unknown) => {
    const file = join(t.dir, 'vwh.config.json');
    writeFileSync(file, JSON.stringify(config));
    try {
      loadConfig(file);
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('says a field is missing, what it is, and links the reference', () => {
    const message = load({ teams: [{}] });
    expect(message).toContain('teams.0.team is missing: a string is required here (team name stored in every row');
    expect(message).not.toContain('received undefined');
    expect(message).toContain('docs/config.md');
  });

  it('suggests the field meant inside a list item', () => {
    expect(load({ teams: [{ team: 'north', apikey: 'x' }] })).toContain(
      'teams.0: unknown field "apikey" (did you mean "apiKeyEnv"?)',
    );
  });
});
