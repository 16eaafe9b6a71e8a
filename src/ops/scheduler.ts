/**
 * The long-lived service's loop, on an injected clock: fires the job when the cron trigger comes due, and catches up
 * from the run ledger (node-cron never replays missed runs): at start, and when the clock jumps (the machine slept),
 * a finished run older than the schedule's last firing means a night was missed, so policy `latest` runs once now
 * and policy `skip` waits for the next firing. It sleeps in ticks of at most `tickMs`, which is how a jump is seen.
 */
import type { Clock } from '../core/clock.js';
import { isVwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { CronTrigger } from './cron.js';
import type { Trigger } from './ledger.js';

export interface SchedulerOptions {
  trigger: CronTrigger;
  clock: Clock;
  catchUp: 'latest' | 'skip';
  logger: Logger;
  stop: AbortSignal;
  /** Start of the newest finished run (ledger), or undefined when none. */
  lastFinished: () => Promise<number | undefined>;
  /** Runs one pipeline; `due` is the firing it serves (the schedule's instant, or the missed one). */
  job: (trigger: Trigger, due: number) => Promise<void>;
  /** Longest sleep between checks (default 60 s). */
  tickMs?: number;
  /** Stop after the start-up catch-up check (`vwh schedule --once`). */
  once?: boolean;
}

/** True when the ledger's newest finished run started before `due`: that firing has not been served. */
export async function missed(
  lastFinished: () => Promise<number | undefined>,
  due: number | undefined,
): Promise<boolean> {
  if (due === undefined) return false;
  const last = await lastFinished();
  return last === undefined || last < due;
}

export async function runScheduler(o: SchedulerOptions): Promise<void> {
  const tick = o.tickMs ?? 60_000;
  const { clock, logger, trigger } = o;
  const catchUp = async (why: string) => {
    const due = trigger.previous(clock.now());
    if (due === undefined) return;
    let last: number | undefined;
    try {
      last = await o.lastFinished();
    } catch (error) {
      // Another process's run holds the warehouse: that run is the catch-up.
      if (!isVwhError(error) || error.code !== 'DB_LOCKED') throw error;
      logger.warn('catch-up: the warehouse is held by another run; nothing to do', { why, error: error.message });
      return;
    }
    if (last !== undefined && last >= due) {
      logger.info('catch-up: nothing missed', { why, last_firing: new Date(due).toISOString() });
      return;
    }
    const facts = {
      why,
      policy: o.catchUp,
      last_firing: new Date(due).toISOString(),
      last_finished_run: last ? new Date(last).toISOString() : null,
    };
    if (o.catchUp === 'skip') {
      logger.warn('catch-up: a scheduled run was missed; policy skip waits for the next firing', facts);
      return;
    }
    logger.warn('catch-up: a scheduled run was missed; policy latest runs once now', facts);
    await o.job('catch-up', due);
  };

  await catchUp('start');
  if (o.once) {
    logger.info('schedule stopped: --once done');
    return;
  }
  let next = trigger.next(clock.now());
  logger.info(`schedule armed: next run ${trigger.describe(next)}`, {
    cron: trigger.expression,
    timezone: trigger.timezone,
    next: new Date(next).toISOString(),
  });
  let lastCheck = clock.now();
  while (!o.stop.aborted) {
    const now = clock.now();
    if (now - lastCheck > 2 * tick + 5_000) {
      logger.warn('the clock jumped (the machine slept?)', { slept_ms: now - lastCheck });
      await catchUp('wake');
      next = trigger.next(clock.now());
    } else if (now >= next) {
      await o.job('schedule', next);
      next = trigger.next(Math.max(clock.now(), next));
      logger.info(`next run ${trigger.describe(next)}`, { next: new Date(next).toISOString() });
    }
    if (o.stop.aborted) break;
    lastCheck = clock.now();
    try {
      await clock.sleep(Math.max(0, Math.min(tick, next - lastCheck)), o.stop);
    } catch {
      break; // stopped while asleep
    }
  }
  logger.info('schedule stopped: no run in progress, nothing more will start');
}
