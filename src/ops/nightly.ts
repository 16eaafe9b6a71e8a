/**
 * One run of the nightly job as `vwh run` and `vwh schedule` start it: reads the config, picks the embedded default
 * when no key is configured, resolves the models folder, the published path and the stages, runs the pipeline.
 */

import { type Clock, systemClock } from '../core/clock.js';
import { loadConfig, readKey, type SyncConfig } from '../core/config.js';
import { ensureWritableFile } from '../core/folders.js';
import { createLogger, jsonLine, type LogFormat, type Logger, wantsColor } from '../core/log.js';
import type { LakeCatalog } from '../export/lake/catalog.js';
import { shippedModelsDir } from '../models/project.js';
import type { SyncOptions } from '../sync/run.js';
import { DEMO_WORLD, type EmbeddedWorld, embeddedSyncOptions, startEmbedded, wantsEmbedded } from './embedded.js';
import type { Trigger } from './ledger.js';
import { dbPathOf, describeWhere, publishPathOf, refuseRunOutputsOnInputs } from './paths.js';
import { type PipelineResult, runPipeline } from './pipeline.js';
import type { Stage } from './stage.js';
import { alertsStage } from './stages/alerts.js';
import { eventsStage } from './stages/events.js';
import { exportsStage } from './stages/exports.js';
import { modelsStage } from './stages/models.js';
import { publishStage } from './stages/publish.js';
import { syncStage } from './stages/sync.js';
import { formatSummary, type Places, summaryFields } from './summary.js';

export interface NightlyFlags {
  config?: string;
  db?: string;
  keyFile?: string;
  baseUrl?: string;
  team?: string;
  today?: string;
  modelsDir?: string;
  logFormat?: LogFormat;
  rateWindowMs?: number;
  /** The sync re-fetches every stream from its start (`vwh sync --full-refresh`). */
  fullRefresh?: boolean;
  /** Run on the embedded reference services even when a key is configured. */
  embedded?: boolean;
  /** The embedded world (defaults: the demo world). */
  world?: Partial<EmbeddedWorld>;
}

export interface NightlyOptions {
  trigger?: Trigger;
  clock?: Clock;
  out?: NodeJS.WritableStream;
  stop?: AbortSignal;
  logger?: Logger;
  /** Print the summary at the end (where to look); the scheduler logs instead. */
  summary?: boolean;
  /** See runPipeline: a reason not to run, checked once the run lock is held. */
  onlyIf?: (dbPath: string) => Promise<string | undefined>;
  /** The Parquet lake's manifest kept in a catalog (a cluster worker's PostgreSQL), not in the lake's folder. */
  lakeCatalog?: LakeCatalog;
}

const SUMMARY_LEVEL = { succeeded: 'info', partial: 'warn', interrupted: 'warn', failed: 'error' } as const;

/** The stages in the order they run. */
export const STAGES: readonly Stage[] = [eventsStage, syncStage, modelsStage, exportsStage, publishStage, alertsStage];

export async function runNightly(flags: NightlyFlags, options: NightlyOptions = {}): Promise<PipelineResult> {
  const config = loadConfig(flags.config);
  const out = options.out ?? process.stdout;
  const logger = options.logger ?? createLogger(flags.logFormat ? { format: flags.logFormat } : {});
  // what is printed follows the format asked for (the logger's when none was: JSON off a terminal)
  const json = (flags.logFormat ?? logger.format) === 'json';
  const dbPath = dbPathOf(flags, config);
  const embedded = flags.embedded || wantsEmbedded(config, flags);
  // A conditional spread: an explicit today: undefined would override the world's default day.
  const world = { ...DEMO_WORLD, ...flags.world, ...(flags.today ? { today: flags.today } : {}) };
  // Every team's key is reached before anything is written: a team without one once created the warehouse, failed
  // its sync (exit 3) and still printed the next queries.
  if (!embedded) reachKeys(config, flags);
  // before the embedded services start: a warehouse folder this user cannot write is a usage error, not a hang
  ensureWritableFile(dbPath, '--db (or "db" in the config)');
  // and no output of the run may land on one of its inputs (publish.path on the warehouse replaced it mid-run)
  refuseRunOutputsOnInputs(dbPath, config);
  // The first line says where the run writes: a mistyped --db or another working directory is seen at once.
  const where = describeWhere(dbPath, publishPathOf(dbPath, config));
  out.write(json ? jsonLine('info', where.line, where.fields) : `${where.line}\n`);
  const services = embedded ? await startEmbedded(world, dbPath) : undefined;
  const previousKey = process.env.VWH_API_KEY;
  try {
    let sync: SyncOptions = {
      config: flags.config,
      keyFile: flags.keyFile,
      baseUrl: flags.baseUrl,
      team: flags.team,
      today: flags.today,
      logFormat: flags.logFormat,
      rateWindowMs: flags.rateWindowMs,
      ...(flags.fullRefresh ? { fullRefresh: true } : {}),
    };
    if (services) {
      const banner = `vwh run: no API key configured, so this run uses ${services.describe}. Set VWH_API_KEY to sync your own account.`;
      // JSON logs: the banner is an event like every other line
      out.write(json ? jsonLine('info', banner, { base_url: services.url }) : `${banner}\n`);
      // The sync reads the single key from VWH_API_KEY, as it would the user's.
      process.env.VWH_API_KEY = services.apiKey;
      sync = { ...sync, ...embeddedSyncOptions(services, world, flags) };
    }
    const today = sync.today;
    const result = await runPipeline(STAGES, {
      trigger: options.trigger ?? 'manual',
      dbPath,
      config,
      sync,
      today,
      modelsDir: flags.modelsDir ?? config.models?.dir ?? shippedModelsDir(),
      publishPath: publishPathOf(dbPath, config),
      clock: options.clock ?? systemClock,
      logger,
      out,
      stop: options.stop ?? new AbortController().signal,
      ...(options.lakeCatalog ? { lakeCatalog: options.lakeCatalog } : {}),
      onlyIf: options.onlyIf ? () => options.onlyIf?.(dbPath) ?? Promise.resolve(undefined) : undefined,
    });
    if (options.summary !== false && !result.skipped) {
      const published = result.stages.find((s) => s.name === 'publish')?.outcome.counts?.path;
      const exported = result.stages.find((s) => s.name === 'exports')?.outcome.counts;
      const lake = (exported?.parquet as { path?: string } | undefined)?.path;
      const report = (exported?.html as { path?: string } | undefined)?.path;
      const places: Places = {
        db: dbPath,
        ...(typeof published === 'string' ? { published } : {}),
        ...(lake ? { lake } : {}),
        ...(report ? { report } : {}),
      };
      // JSON logs: the summary is one event, so that every line of the output parses
      out.write(
        json
          ? jsonLine(SUMMARY_LEVEL[result.status], 'run summary', summaryFields(result, places))
          : formatSummary(result, places, { color: wantsColor(out) }),
      );
    }
    return result;
  } finally {
    if (services) {
      if (previousKey === undefined) delete process.env.VWH_API_KEY;
      else process.env.VWH_API_KEY = previousKey;
      await services.close();
    }
  }
}

/** Reads every key the sync will use (the teams' variables or files, else VWH_API_KEY / --key-file): AUTH_MISSING_KEY. */
function reachKeys(config: SyncConfig, flags: NightlyFlags): void {
  if (!config.teams) {
    readKey(flags.keyFile ? { file: flags.keyFile } : {}, 'the sync');
    return;
  }
  for (const team of config.teams) readKey({ env: team.apiKeyEnv, file: team.apiKeyFile }, `team ${team.team}`);
}
