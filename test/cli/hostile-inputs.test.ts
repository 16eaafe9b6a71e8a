/**
 * Inputs an adversarial probe gave the built CLI (issue 55): each is refused with exit 64 and a message that names
 * the input and what a valid value looks like, never echoing a secret, before anything listens, opens or fetches.
 * Real child processes of `dist/`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures.js';
import { vwh } from './support.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('vwh-hostile-').dir;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('vwh events listen', () => {
  it('refuses an empty --secret: it would accept a body anyone can sign', async () => {
    const db = join(dir, 'w.duckdb');
    const ran = await vwh(['events', 'listen', '--db', db, '--port', '0', '--secret', ''], { cwd: dir });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toContain('--secret must be at least 16 characters');
    expect(ran.stderr).toContain('got 0 characters');
    expect(ran.stderr).toContain('[USAGE]');
  });

  it('refuses a short secret from the flag or VWH_WEBHOOK_SECRETS, without echoing it', async () => {
    const db = join(dir, 'w.duckdb');
    const ok = 'whsec_long_enough_0123';
    const flag = await vwh(['events', 'listen', '--db', db, '--port', '0', '--secret', ok, '--secret', 'shh-123'], {
      cwd: dir,
    });
    expect(flag.code).toBe(64);
    expect(flag.stderr).toContain('--secret must be at least 16 characters');
    expect(flag.stderr).not.toContain('shh-123');
    const env = await vwh(['events', 'listen', '--db', db, '--port', '0'], {
      cwd: dir,
      env: { VWH_WEBHOOK_SECRETS: `${ok},tiny-secret` },
    });
    expect(env.code).toBe(64);
    expect(env.stderr).toMatch(/VWH_WEBHOOK_SECRETS \(secret 2\) must be at least 16 characters .*got 11 characters/);
    expect(env.stderr).not.toContain('tiny-secret');
  });
});
