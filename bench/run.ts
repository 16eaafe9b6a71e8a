/**
 * `npm run bench`: runs every bench/*.bench.ts (built to dist/bench/) in turn, or only those named on the
 * command line (`npm run bench -- loader`). Each writes bench/results/<name>.json.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => /\.bench\.js$/.test(f))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  const mod = (await import(pathToFileURL(`${here}/${file}`).href)) as { main: () => Promise<unknown> };
  const result = await mod.main();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
if (files.length === 0) process.stderr.write('bench: nothing matched\n');
