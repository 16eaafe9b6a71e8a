// One first build of a copy of a raw warehouse, in this process; prints CPU, wall and peak RSS.
import { copyFileSync, rmSync } from 'node:fs';
const ROOT = '/work/integ/dist/src/';
const { runProject } = await import(ROOT + 'models/runner.js');
const { loadProject } = await import(ROOT + 'models/project.js');
const { Database } = await import(ROOT + 'warehouse/duckdb.js');
const { ManualClock } = await import(ROOT + 'core/clock.js');
const { silentLogger } = await import(ROOT + 'core/log.js');
const [src, day, limit = '1GB'] = process.argv.slice(2);
const db = '/tmp/nx/b1.duckdb';
rmSync(db, { force: true }); rmSync(db + '.wal', { force: true });
copyFileSync(src, db);
const t0 = performance.now();
const project = await loadProject('/work/integ/dbt-like-models');
const extra = process.env.XCFG ? JSON.parse(process.env.XCFG) : {};
const d = await Database.open(db, { memory_limit: limit, threads: '2', ...extra });
const samples = [];
const spans = [];
const rec = { format: 'json', debug() {}, warn(m, f) { this.info(m, f); }, error(m, f) { this.info(m, f); }, info(m, f) { if (f?.node) spans.push([f.node, Date.now() - (f.ms ?? 0), Date.now()]); }, child() { return rec; } };
const timer = setInterval(() => { samples.push([Date.now(), process.memoryUsage.rss()]); }, 10);
const r = await runProject(d, project, { command: 'build', threads: 2, clock: new ManualClock(Date.parse(day + 'T01:00:00Z')), logger: rec });
clearInterval(timer);
const top = [...samples].sort((a, b) => b[1] - a[1]);
const seen = [];
for (const [t, rss] of top) { if (seen.some((x) => Math.abs(x[0] - t) < 3000)) continue; seen.push([t, rss]); if (seen.length >= 6) break; }
for (const [t, rss] of seen) {
  const running = spans.filter((x) => x[1] <= t && t <= x[2]).map((x) => x[0] + '@' + Math.round((t - x[1]) / 100) / 10 + 's/' + Math.round((x[2] - x[1]) / 100) / 10);
  const near0 = r.results.map((x) => [x.id, Date.parse(x.startedAt) - t, Date.parse(x.startedAt) + x.durationMs - t]).filter((x) => x[1] < 5000 && x[2] > -5000);
  console.log(Math.round(rss / 1048576), 'MB', new Date(t).toISOString(), running.join(', '), '');
} d.close();
const u = process.resourceUsage();
console.log(JSON.stringify({ env: (process.env.MALLOC_ARENA_MAX ?? '-') + (process.env.XCFG ?? ''), ms: Math.round(performance.now() - t0), cpuMs: Math.round((u.userCPUTime + u.systemCPUTime) / 1000), maxRssMb: Math.round(u.maxRSS / 1024), failing: r.results.filter((x) => x.status !== 'success').length }));
rmSync(db, { force: true });
