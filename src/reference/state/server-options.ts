/** Options of `startReferenceServer` and `vwh serve`, with their defaults. */
import type { Clock } from '../../core/clock.js';
import { msToDay } from '../../core/days.js';
import type { Day } from '../world/types.js';

export interface ReferenceServerOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  seed?: number;
  /** The simulated date (`YYYY-MM-DD`); default today's UTC date. The simulated clock starts at 06:00 UTC of it. */
  today?: Day;
  /** Create a demo team with `projects` projects of `prompts` prompts and `historyDays` of history. */
  demo?: boolean;
  historyDays?: number;
  projects?: number;
  prompts?: number;
  /**
   * Extension for estimator tests: planted step changes of each demo project's own brand (its mention probability on
   * every prompt, ramped like an action's effect), that many per project; default 0 (none). See world/demo-projects.ts.
   */
  ownShifts?: number;
  /** The sliding rate-limit window (60 000 ms in the spec); scaled down in tests. */
  rateWindowMs?: number;
  /** Share of each day's answers that arrive a day late. */
  lateFraction?: number;
  /** A fault spec (faults/spec.ts). */
  faults?: string | null;
  /** Real time after which background work finishes (default 2000 ms). */
  backgroundDelayMs?: number;
  /** The clock of the rate window and of background delays (default: real time). */
  clock?: Clock;
  /** Listen on a non-loopback host even though the control plane (/_reference/) is then reachable with its token. */
  allowRemoteControl?: boolean;
  /**
   * The token every /_reference/ call must carry. Default: none on a loopback host, a random one otherwise
   * (`ReferenceServer.controlToken`).
   */
  controlToken?: string;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  seed: number;
  today: Day;
  demo: boolean;
  historyDays: number;
  projects: number;
  prompts: number;
  ownShifts: number;
  rateWindowMs: number;
  lateFraction: number;
  faults: string | null;
  backgroundDelayMs: number;
  allowRemoteControl: boolean;
}

export function resolveOptions(options: ReferenceServerOptions, realNow: number): ResolvedOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    seed: options.seed ?? 42,
    today: options.today ?? msToDay(realNow),
    demo: options.demo ?? false,
    historyDays: options.historyDays ?? 90,
    projects: options.projects ?? 3,
    prompts: options.prompts ?? 12,
    ownShifts: options.ownShifts ?? 0,
    rateWindowMs: options.rateWindowMs ?? 60_000,
    lateFraction: options.lateFraction ?? 0.1,
    faults: options.faults ?? null,
    backgroundDelayMs: options.backgroundDelayMs ?? 2000,
    allowRemoteControl: options.allowRemoteControl ?? false,
  };
}
