/**
 * `vwh events listen`: receives the service's webhook deliveries (signed action events on /webhooks, unsigned
 * project.bootstrap callbacks on /bootstrap) into an append-only journal that the next `vwh run` ingests into
 * raw.webhook_events. It never opens the warehouse, so it runs beside the nightly job.
 */
import type { Command } from 'commander';
import type { SyncConfig } from '../../core/config.js';
import { exitCodesHelp, registerSecret } from '../../core/errors.js';
import { checked, DbFile, Port, WebhookSecret, wholeNumber } from '../../core/inputs.js';
import type { LogFormat, Logger } from '../../core/log.js';
import type { Receiver } from '../../ops/events/receiver.js';
import { numberFlag, textFlag } from '../validate.js';

interface ListenFlags {
  config?: string;
  db?: string;
  port?: number;
  host?: string;
  secret: string[];
  journalDir?: string;
  maxBodyBytes?: number;
  maxAgeHours?: number;
  logFormat?: LogFormat;
}

export function register(program: Command): void {
  const events = program.command('events').description("Receive the service's webhook deliveries.");
  events
    .command('listen')
    .description('Receive webhook deliveries into a journal the next vwh run ingests (raw.webhook_events).')
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option(
      '--db <path>',
      'the warehouse whose journal this is (the journal sits in events/ beside it)',
      textFlag('--db', DbFile),
    )
    .option('--port <n>', 'port (default events.port, else 8788)', numberFlag('--port', Port))
    .option('--host <host>', 'interface (default events.host, else 127.0.0.1)')
    .option(
      '--secret <secret>',
      'a webhook secret accepted (repeat during a rotation; also events.secrets and VWH_WEBHOOK_SECRETS, comma-separated)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--journal-dir <dir>', 'journal folder (default events.journalDir, else events/ beside the warehouse)')
    .option(
      '--max-body-bytes <n>',
      'larger bodies get 413 (default 1048576)',
      numberFlag('--max-body-bytes', wholeNumber(1)),
    )
    .option(
      '--max-age-hours <n>',
      'a signed delivery whose timestamp is further than this from now gets 422 (default events.maxAgeHours, else 24)',
      numberFlag('--max-age-hours', wholeNumber(1, 8760)),
    )
    .addHelpText(
      'after',
      '\nRegister https://<this host>/webhooks with POST /webhooks (events action.checkpoint, action.completed,\n' +
        'action.failed), and give https://<this host>/bootstrap as webhook_url when creating projects.\n' +
        'Answers: 200 stored (or the same body stored before: a retry or a replay), 401 missing/invalid\n' +
        'X-Webhook-Signature, 413 body too large, 400 not an event, 422 timestamp older than --max-age-hours.\n' +
        exitCodesHelp([0, 1, 64], { 0: 'stopped by SIGINT or SIGTERM' }),
    )
    .action(async (flags: ListenFlags) => {
      const { loadConfig } = await import('../../core/config.js');
      const { createLogger } = await import('../../core/log.js');
      const { dbPathOf } = await import('../../ops/paths.js');
      const config = loadConfig(flags.config);
      const logger = createLogger(flags.logFormat ? { format: flags.logFormat } : {});
      const receiver = await listenForEvents(config, dbPathOf(flags, config), flags, logger);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await receiver.close();
    });
}

/**
 * Starts the webhook receiver as `vwh events listen` and `vwh schedule --events-port` configure it: the secrets of
 * the config, of `--secret` and of VWH_WEBHOOK_SECRETS, the journal beside the warehouse (or `events.journalDir`).
 */
export async function listenForEvents(
  config: SyncConfig,
  dbPath: string,
  flags: Omit<ListenFlags, 'config' | 'db' | 'logFormat'>,
  logger: Logger,
): Promise<Receiver> {
  // The flag and the variable are held to the config's rule: an empty or short secret would accept forged bodies.
  const secrets = [
    ...(config.events?.secrets ?? []),
    ...flags.secret.map((s) => checked('--secret', WebhookSecret, s)),
    ...(process.env.VWH_WEBHOOK_SECRETS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s, i) => checked(`VWH_WEBHOOK_SECRETS (secret ${i + 1})`, WebhookSecret, s)),
  ];
  for (const s of secrets) registerSecret(s);
  if (secrets.length === 0) logger.warn('no webhook secret configured: every signed delivery will be refused (401)');
  const { guardedInputs, journalDirOf } = await import('../../ops/paths.js');
  const { ensureWritableDir } = await import('../../core/folders.js');
  const { EventJournal } = await import('../../ops/events/journal.js');
  const { startReceiver, DEFAULT_MAX_AGE_HOURS } = await import('../../ops/events/receiver.js');
  const { systemClock } = await import('../../core/clock.js');
  const flag = flags.journalDir ? '--journal-dir' : 'events.journalDir';
  const dir = ensureWritableDir(
    flags.journalDir ?? journalDirOf(dbPath, config),
    flag,
    guardedInputs(dbPath, config),
    'journal',
  );
  const receiver = await startReceiver({
    host: flags.host ?? config.events?.host ?? '127.0.0.1',
    port: flags.port ?? config.events?.port ?? 8788,
    secrets,
    journal: new EventJournal(dir),
    maxBodyBytes: flags.maxBodyBytes ?? config.events?.maxBodyBytes ?? 1_048_576,
    maxAgeMs: (flags.maxAgeHours ?? config.events?.maxAgeHours ?? DEFAULT_MAX_AGE_HOURS) * 3_600_000,
    clock: systemClock,
    logger,
  });
  logger.info('listening for webhook deliveries', { url: receiver.url, journal: dir, secrets: secrets.length });
  return receiver;
}
