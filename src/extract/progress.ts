import type { WaitEvent } from '../client/wait-events.js';
import type { Logger } from '../core/log.js';

export interface PlanLine {
  stream: string;
  units: number;
  requests: number;
  parents: number;
  /** Parents already complete (daily streams: only the lookback days are fetched again). */
  complete: number;
}

export interface SyncPlan {
  teamId: string;
  today: string;
  window: { from: string; to: string };
  streams: PlanLine[];
  /** Discovery (projects and prompt lists) plus every unit's estimate. */
  requests: number;
  usablePerWindow: number;
  windowMs: number;
  /** requests ÷ the key's rate: no sync can take less. */
  floorMs: number;
  unreachable: Array<{ project: string; reason: string }>;
}

export interface UnitProgress {
  teamId: string;
  stream: string;
  unitKey: string;
  done: number;
  total: number;
  requests: number;
  budgetAvailable: number;
  usablePerWindow: number;
  waits: number;
  etaMs: number;
  rows: number;
}

/** Where the sync reports what it plans and does: a terminal line, or JSON log lines. */
export interface ProgressSink {
  plan(plan: SyncPlan): void;
  unit(progress: UnitProgress): void;
  wait(teamId: string, event: WaitEvent): void;
  done(teamId: string, summary: Record<string, unknown>): void;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The plan as a table, for `--plan` and the start of a sync on a terminal. */
export function formatPlan(plan: SyncPlan): string {
  const lines = [
    `team ${plan.teamId}: plan for ${plan.today} (window ${plan.window.from}..${plan.window.to})`,
    `  ${'stream'.padEnd(22)}${'units'.padStart(7)}${'requests'.padStart(10)}${'complete'.padStart(12)}`,
  ];
  for (const s of plan.streams) {
    lines.push(
      `  ${s.stream.padEnd(22)}${String(s.units).padStart(7)}${String(s.requests).padStart(10)}${`${s.complete}/${s.parents}`.padStart(12)}`,
    );
  }
  lines.push(
    `  total ${plan.requests} requests (discovery included); floor ${formatDuration(plan.floorMs)} at ${plan.usablePerWindow} per ${formatDuration(plan.windowMs)}`,
  );
  for (const u of plan.unreachable) lines.push(`  unreachable project ${u.project}: ${u.reason}`);
  return lines.join('\n');
}

/** One line rewritten in place on a terminal. */
export class TerminalProgress implements ProgressSink {
  private waits = 0;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  plan(plan: SyncPlan): void {
    this.out.write(`${formatPlan(plan)}\n`);
  }

  unit(p: UnitProgress): void {
    this.out.write(
      `\r\x1b[2K${p.teamId} ${p.stream} ${p.done}/${p.total} units · ${p.requests} requests · budget ${p.budgetAvailable}/${p.usablePerWindow} · waits ${p.waits} · eta ${formatDuration(p.etaMs)}`,
    );
  }

  wait(_teamId: string, _event: WaitEvent): void {
    this.waits++;
  }

  done(teamId: string, summary: Record<string, unknown>): void {
    this.out.write(`\r\x1b[2K${teamId}: ${summary.status} ${JSON.stringify(summary)}\n`);
  }
}

/** JSON log lines (cron): the plan, one line per finished unit at debug level, a summary per stream and run. */
export class LogProgress implements ProgressSink {
  constructor(private readonly logger: Logger) {}

  plan(plan: SyncPlan): void {
    this.logger.info('sync plan', { ...plan });
  }

  unit(p: UnitProgress): void {
    this.logger.debug('unit done', { ...p });
  }

  wait(teamId: string, event: WaitEvent): void {
    this.logger.debug('waiting', { teamId, ...event });
  }

  done(teamId: string, summary: Record<string, unknown>): void {
    this.logger.info('sync done', { teamId, ...summary });
  }
}

export const silentProgress: ProgressSink = { plan() {}, unit() {}, wait() {}, done() {} };
