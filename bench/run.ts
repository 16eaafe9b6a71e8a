/**
 * `npm run bench`: runs every bench/*.bench.ts (built to dist/bench/) in turn, or only those named on the
 * command line, by their exact names (`npm run bench -- loader models`: `models` is not `models-real`). Each writes
 * bench/results/<name>.json. Each bench runs in a process of its own, so one bench's memory (RSS, heap) and warm
 * caches never weigh on the next one's figures.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv[2] === '--one' ? [] : process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => /\.bench\.js$/.test(f))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f === `${w}.bench.js`))
  .sort();

const child = process.argv[2] === '--one';
if (child) {
  const file = process.argv[3] ?? '';
  const mod = (await import(pathToFileURL(`${here}/${file}`).href)) as { main: () => Promise<unknown> };
  const result = await mod.main();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  for (const file of files) {
    process.stderr.write(`bench: ${file}\n`);
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', file], { stdio: 'inherit' });
    if (run.status !== 0) {
      process.stderr.write(`bench: ${file} failed (exit ${run.status ?? run.signal})\n`);
      process.exitCode = 1;
    }
  }
}
if (!child && files.length === 0) process.stderr.write('bench: nothing matched\n');
