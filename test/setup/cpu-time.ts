/**
 * With VWH_TEST_TIMES=<file>, appends one JSON line per test file: its wall time and the CPU time (user + system, in
 * ms) of its worker process and of the child processes it waited for (the CLI it spawned), read from /proc (Linux).
 * On a machine other work loads, the CPU time is the figure that does not move with the load.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

const out = process.env.VWH_TEST_TIMES;

/** This process's and its waited-for children's CPU time in ms (/proc/self/stat's utime, stime, cutime, cstime). */
const cpuMs = (): number => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is the state (field 3 of proc(5)); utime..cstime are fields 14..17.
  const ticks = [11, 12, 13, 14].reduce((sum, at) => sum + Number(fields[at]), 0);
  return ticks * 10;
};

if (out) {
  const startWall = performance.now();
  const startCpu = cpuMs();
  afterAll(() => {
    const file = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath ?? '?';
    const line = { file, wallMs: Math.round(performance.now() - startWall), cpuMs: cpuMs() - startCpu };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
