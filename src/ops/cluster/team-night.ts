/**
 * One team's night on a worker: the job's data (what `vwh run` or the schedule asked), the team's folder in the
 * shared data dir, and the single-machine config a worker writes there for that team alone, so that the night is
 * exactly `vwh run` of one team (sync → models → exports into the shared lake → publish), the same code.
 */
import { mkdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ClusterSettings } from '../../core/cluster-config.js';
import type { SyncConfig, TeamConfig } from '../../core/config.js';
import { VwhError } from '../../core/errors.js';
import { checkSegment, writeFileAtomic } from '../../export/paths.js';
import type { Trigger } from '../ledger.js';

/** What a job carries: a worker runs exactly this. */
export interface NightJob {
  night_id: string;
  team: string;
  trigger: Trigger;
  options: NightRunOptions;
}

/** The options of `vwh run` a job carries to the worker. */
export interface NightRunOptions {
  today?: string;
  rateWindowMs?: number;
  fullRefresh?: boolean;
  modelsDir?: string;
}

export interface TeamPlaces {
  dir: string;
  db: string;
  published: string;
  lake: string;
  config: string;
}

export function teamPlaces(settings: ClusterSettings, config: SyncConfig, team: string): TeamPlaces {
  const data = resolve(settings.dataDir);
  const dir = join(data, 'teams', checkSegment(team, 'Team'));
  return {
    dir,
    db: join(dir, 'warehouse.duckdb'),
    published: join(dir, 'published', 'warehouse.duckdb'),
    lake: resolve(config.exports?.parquet?.outDir ?? join(data, 'lake')),
    config: join(dir, 'vwh.config.json'),
  };
}

/**
 * The shared lake the teams' nights export to (none when the config's exports have no Parquet lake) and its name in
 * the cluster's lake catalog: its folder relative to the shared folder, the same on every machine whatever its mount.
 */
export function sharedLake(settings: ClusterSettings, config: SyncConfig): { dir: string; name: string } | undefined {
  if (config.exports && !config.exports.parquet) return undefined;
  const data = resolve(settings.dataDir);
  const dir = resolve(config.exports?.parquet?.outDir ?? join(data, 'lake'));
  const rel = relative(data, dir);
  return { dir, name: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : dir };
}

/** The team's entry of the config, or a config error saying the worker's config does not know it. */
export function teamOf(config: SyncConfig, team: string): TeamConfig {
  const entry = config.teams?.find((t) => t.team === team);
  if (!entry) {
    throw new VwhError(
      'CONFIG_INVALID',
      `Team ${team} is not in this worker's config: every machine of a cluster runs the same config (teams included).`,
    );
  }
  return entry;
}

/**
 * Writes the team's one-team config into its folder and returns its path: the cluster's config without `cluster`,
 * `teams` cut to this team, its warehouse and published copy in its folder, the Parquet lake the shared one. Paths
 * of the config are made absolute (the worker's working directory is not the team's folder).
 */
export function writeTeamConfig(settings: ClusterSettings, config: SyncConfig, team: string): TeamPlaces {
  const places = teamPlaces(settings, config, team);
  const entry = teamOf(config, team);
  const { cluster: _cluster, ...rest } = config;
  const exports = config.exports ?? {
    parquet: { outDir: places.lake },
    html: { out: join(places.dir, 'reports', 'report.html') },
  };
  const teamConfig: SyncConfig = {
    ...rest,
    db: places.db,
    teams: [{ ...entry, ...(entry.apiKeyFile ? { apiKeyFile: resolve(entry.apiKeyFile) } : {}) }],
    ...(config.models?.dir ? { models: { ...config.models, dir: resolve(config.models.dir) } } : {}),
    exports: {
      ...(exports.parquet ? { parquet: { ...exports.parquet, outDir: places.lake } } : {}),
      ...(exports.arrow ? { arrow: { ...exports.arrow, outDir: join(places.dir, 'arrow') } } : {}),
      ...(exports.html ? { html: { ...exports.html, out: join(places.dir, 'reports', 'report.html') } } : {}),
    },
    publish: { ...config.publish, path: places.published },
    // the queue's lease says who runs this team: a run lock another host's dead worker left is stale once the
    // lease it held has lapsed
    schedule: { ...config.schedule, staleLockMinutes: Math.max(1, Math.ceil(settings.leaseSeconds / 60)) },
  };
  mkdirSync(places.dir, { recursive: true });
  writeFileAtomic(places.config, `${JSON.stringify(teamConfig, null, 2)}\n`);
  return places;
}
