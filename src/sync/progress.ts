import type { WaitEvent } from '../client/wait-events.js';
import type { Logger } from '../core/log.js';

export interface PlanLine {
  stream: string;
  units: number;
  requests: number;
  parents: number;
  /** Parents already complete (daily streams: only the lookback days are fetched again). */
  complete: number;
  /** Parents on the rotation whose night it is not (nothing asked for them tonight). */
  deferred: number;
  /** Why the stream does not run for this team (e.g. team_members without a user id). */
  skipped?: string;
}

export interface SyncPlan {
  teamId: string;
  today: string;
  window: { from: string; to: string };
  streams: PlanLine[];
  /** Discovery (projects and prompt lists) plus every unit's estimate. */
  requests: number;
  /** Active prompts of the team (they collect answers every day). */
  activePrompts: number;
  /** Requests of prompt-level units (every prompt, active or not). */
  promptRequests: number;
  /** Discovery, project-level and team-level requests, counted apart from the prompts'. */
  otherRequests: number;
  /** promptRequests ÷ activePrompts: about 1 on a night, when the rotation spreads the derivable streams. */
  requestsPerActivePrompt: number;
  /** Nights of the rotation of derivable streams (1: every night). */
  rotationDays: number;
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
  /** The plan's estimate of the sync's requests (discovery included), the same count as `requests`. */
  requestsPlanned?: number;
  budgetAvailable: number;
  usablePerWindow: number;
  waits: number;
  etaMs: number;
  /** Rows of this unit (`unit`), or of the whole sync so far (`status`). */
  rows: number;
}

/** Where the sync reports what it plans and does: a terminal line, or JSON log lines. */
export interface ProgressSink {
  plan(plan: SyncPlan): void;
  unit(progress: UnitProgress): void;
  wait(teamId: string, event: WaitEvent): void;
  /** Where the sync stands, every `heartbeatMs` whatever happens (a cron log is never silent for long). */
  status?(progress: UnitProgress): void;
  done(teamId: string, summary: Record<string, unknown>): void;
}

export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return `${Math.round(ms)}ms`;
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
    `  ${'stream'.padEnd(22)}${'units'.padStart(7)}${'requests'.padStart(10)}${'complete'.padStart(12)}${'rotation'.padStart(10)}`,
  ];
  // the rows add up to the total: discovery (the projects and their prompt lists) is a row of its own
  const discovery = plan.requests - plan.streams.reduce((n, s) => n + s.requests, 0);
  lines.push(`  ${'discovery'.padEnd(22)}${'-'.padStart(7)}${String(discovery).padStart(10)}`);
  for (const s of plan.streams) {
    const row = `  ${s.stream.padEnd(22)}${String(s.units).padStart(7)}${String(s.requests).padStart(10)}`;
    const rotation = s.deferred > 0 ? `${s.deferred} later`.padStart(10) : '';
    // a stream landed from discovery's responses (prompts) asks nothing of its own
    const note = s.units > 0 && s.requests === 0 ? '  (from discovery)' : '';
    lines.push(
      s.skipped
        ? `${row}  skipped: ${s.skipped}`
        : `${row}${`${s.complete}/${s.parents}`.padStart(12)}${rotation}${note}`,
    );
  }
  lines.push(
    `  total ${plan.requests} requests, one per page expected (a list longer than a page adds its pages); floor ${formatDuration(plan.floorMs)} at ${plan.usablePerWindow} per ${formatDuration(plan.windowMs)}`,
    `  ${plan.requestsPerActivePrompt} requests per active prompt (${plan.promptRequests} for ${plan.activePrompts} active prompts; ${plan.otherRequests} project, team and discovery requests apart)`,
    plan.rotationDays > 1
      ? `  rotation: prompt metrics, domains and URLs (and inactive prompts' chats) refreshed once every ${plan.rotationDays} nights per prompt, spread evenly; "later" = waiting for its night`
      : '  rotation: off (every stream of every prompt every night)',
  );
  for (const u of plan.unreachable) lines.push(`  unreachable project ${u.project}: ${u.reason}`);
  return lines.join('\n');
}

const count = (n: unknown) => Number(n ?? 0).toLocaleString('en-US');

/** `a 1, b 2` from `{ a: 1, b: 2 }` (nothing when empty). */
function listCounts(counts: unknown): string {
  return Object.entries((counts ?? {}) as Record<string, unknown>)
    .map(([name, n]) => `${name} ${count(n)}`)
    .join(', ');
}

/**
 * A team's end of sync as a block a person reads (the JSON log has the same fields as one event): status, units,
 * requests, the rows landed per table, and what went wrong, if anything.
 */
export function formatSyncDone(teamId: string, summary: Record<string, unknown>, rowsPerTable = true): string {
  const lines = [
    `team ${teamId}: sync ${summary.status} · ${summary.units} units · ${count(summary.requests)} requests` +
      ` (${count(summary.throttled429)} throttled, ${count(summary.retries)} retries)`,
  ];
  if (rowsPerTable) lines.push(`  rows landed: ${listCounts(summary.rows) || 'none'}`);
  else {
    const total = Object.values((summary.rows ?? {}) as Record<string, unknown>).reduce<number>(
      (sum, n) => sum + Number(n ?? 0),
      0,
    );
    lines[0] += ` · ${count(total)} rows landed`;
  }
  const rejected = listCounts(summary.rejected);
  if (rejected) lines.push(`  rows rejected (schema drift): ${rejected}; see ops.rejected_rows`);
  for (const u of (summary.unreachable ?? []) as Array<{ project: string; reason: string }>)
    lines.push(`  project ${u.project} skipped: ${u.reason}`);
  for (const f of (summary.failedUnits ?? []) as Array<{ unit: string; error: string }>)
    lines.push(`  unit ${f.unit} failed: ${f.error}`);
  return lines.join('\n');
}

/** Where the terminal display writes (process.stderr, or any stream in tests). */
export interface ProgressOut {
  write(text: string): unknown;
  columns?: number;
}

interface TeamLine {
  unit?: UnitProgress;
  /** The wait in progress, if it is not over yet. */
  wait?: WaitEvent;
}

/**
 * One line rewritten in place on a terminal: per team, the stream, units done/total, requests, the budget left in
 * the window, the waits so far and the ETA; and while the client waits (budget, Retry-After, backoff), what for and
 * how long, so a wait never looks like a hang.
 */
export class TerminalProgress implements ProgressSink {
  private readonly teams = new Map<string, TeamLine>();
  private waits = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly out: ProgressOut = process.stderr,
    private readonly now: () => number = Date.now,
    private readonly rowsPerTable = true,
  ) {}

  plan(plan: SyncPlan): void {
    this.out.write(`\r\x1b[2K${formatPlan(plan)}\n`);
  }

  unit(p: UnitProgress): void {
    const line = this.teams.get(p.teamId) ?? {};
    line.unit = p;
    this.teams.set(p.teamId, line);
    this.render();
  }

  wait(teamId: string, event: WaitEvent): void {
    this.waits++;
    const line = this.teams.get(teamId) ?? {};
    line.wait = event;
    this.teams.set(teamId, line);
    this.render();
    // A long wait (a whole rate window, a Retry-After) counts down on screen rather than standing still.
    this.ticker ??= setInterval(() => this.render(), 1000);
    this.ticker.unref?.();
  }

  done(teamId: string, summary: Record<string, unknown>): void {
    this.teams.delete(teamId);
    if (this.teams.size === 0) this.stopTicker();
    this.out.write(`\r\x1b[2K${formatSyncDone(teamId, summary, this.rowsPerTable)}\n`);
    if (this.teams.size > 0) this.render();
  }

  /** The current line (without the terminal control characters). */
  line(): string {
    const now = this.now();
    const parts: string[] = [];
    for (const [teamId, { unit: p, wait }] of this.teams) {
      let text = p
        ? `${teamId} ${p.stream} ${p.done}/${p.total} units · ${requestsOf(p)} · budget ${p.budgetAvailable}/${p.usablePerWindow} · waits ${p.waits} · eta ${formatDuration(p.etaMs)}`
        : `${teamId} starting`;
      if (wait && wait.until > now)
        text += ` · waiting ${formatDuration(wait.until - now)} (${WAIT_WORDS[wait.reason]})`;
      parts.push(text);
    }
    return parts.join(' | ');
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private render(): void {
    const now = this.now();
    if (![...this.teams.values()].some((t) => t.wait && t.wait.until > now)) this.stopTicker();
    const text = this.line();
    const width = this.out.columns;
    this.out.write(`\r\x1b[2K${width && text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`);
  }
}

/** `31/140 requests` against the plan; past the plan's estimate (a list longer than a page), `441 requests (plan 408)`. */
function requestsOf(p: UnitProgress): string {
  if (p.requestsPlanned === undefined) return `${p.requests} requests`;
  return p.requests <= p.requestsPlanned
    ? `${p.requests}/${p.requestsPlanned} requests`
    : `${p.requests} requests (plan ${p.requestsPlanned})`;
}

const WAIT_WORDS: Record<WaitEvent['reason'], string> = {
  budget: 'rate budget',
  'retry-after': 'Retry-After of a 429',
  backoff: 'backoff before a retry',
};

/** Waits at least this long are logged at info level in JSON logs (shorter ones at debug): no silent hang in cron. */
export const LOGGED_WAIT_MS = 5_000;

/** JSON log lines (cron): the plan, one line per finished unit at debug level, a summary per stream and run. */
export class LogProgress implements ProgressSink {
  constructor(
    private readonly logger: Logger,
    private readonly rowsPerTable = true,
  ) {}

  plan(plan: SyncPlan): void {
    // A person reading a pretty log gets the table; a machine gets the fields.
    if (this.logger.format === 'human') this.logger.info(formatPlan(plan));
    else this.logger.info('sync plan', { ...plan });
  }

  unit(p: UnitProgress): void {
    this.logger.debug('unit done', { ...p });
  }

  wait(teamId: string, event: WaitEvent): void {
    const fields = {
      teamId,
      reason: event.reason,
      ms: Math.round(event.ms),
      until: new Date(event.until).toISOString(),
    };
    if (event.ms >= LOGGED_WAIT_MS) this.logger.info('waiting', fields);
    else this.logger.debug('waiting', fields);
  }

  status(p: UnitProgress): void {
    this.logger.info('sync progress', {
      teamId: p.teamId,
      stream: p.stream,
      units: `${p.done}/${p.total}`,
      unitsDone: p.done,
      unitsTotal: p.total,
      requests: p.requests,
      requestsPlanned: p.requestsPlanned,
      rows: p.rows,
      budgetLeft: p.budgetAvailable,
      usablePerWindow: p.usablePerWindow,
      etaMs: Math.round(p.etaMs),
    });
  }

  done(teamId: string, summary: Record<string, unknown>): void {
    if (this.logger.format === 'human') this.logger.info(formatSyncDone(teamId, summary, this.rowsPerTable));
    else this.logger.info('sync done', { teamId, ...summary });
  }
}

export const silentProgress: ProgressSink = { plan() {}, unit() {}, wait() {}, done() {} };
