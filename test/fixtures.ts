/**
 * The suite's one test setup (as Kysely's test-setup.ts): temporary folders, a reference world on port 0, the test
 * day. Every test file takes these from here; a folder's own `support.ts` builds on them (its world's shape, its
 * helpers) and does not declare its own. What a file makes here is removed when the file ends
 * (test/setup/isolation.ts calls `releaseFixtures`), so a failing test leaves nothing behind either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from '../src/reference/index.js';

/**
 * The test day: the reference world's "today" (and `--today` of the CLI) wherever a test needs no other. Fixed, so
 * a world and every figure in it are the same on every run, whatever the machine's clock says.
 */
export const TODAY = '2026-03-15';

/** The repository's root folder. */
export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
/** The built CLI (test/setup/build.ts builds dist/ before the suite when it is missing or older than src/). */
export const BIN = resolve(ROOT, 'dist/src/cli/bin.js');

export interface TempDir {
  /** The folder, new and empty. */
  dir: string;
  /** A warehouse file's path in it (not created). */
  db: string;
  /** Removes the folder now (it is removed when the test file ends anyway). */
  cleanup(): void;
}

const folders = new Set<string>();
const servers = new Set<ReferenceServer>();

/** A new empty folder under the system's temp folder, named `prefix` + random; removed when the test file ends. */
export function tempDir(prefix = 'vwh-test-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  return {
    dir,
    db: join(dir, 'w.duckdb'),
    cleanup() {
      folders.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The small world most tests need: the demo team, 2 projects × 6 prompts × 10 days, seed 7, on TODAY. */
export const SMALL_WORLD = { seed: 7, projects: 2, prompts: 6, historyDays: 10 } as const;

/**
 * The reference services on port 0 (real HTTP), the demo team of SMALL_WORLD on TODAY unless `options` says
 * otherwise; closed when the test file ends (closing it earlier is fine).
 */
export async function referenceWorld(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const server = await startReferenceServer({ port: 0, today: TODAY, demo: true, ...SMALL_WORLD, ...options });
  servers.add(server);
  const close = server.close.bind(server);
  server.close = async () => {
    if (!servers.delete(server)) return;
    await close();
  };
  return server;
}

/** Closes the worlds and removes the folders the file made (test/setup/isolation.ts, after each test file). */
export async function releaseFixtures(): Promise<void> {
  const open = [...servers];
  servers.clear();
  await Promise.allSettled(open.map((server) => server.close()));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
}
