/**
 * What the reference state holds beneath its services: the options, the clocks, the ids and the stores. The
 * services (bootstrap, workflows, content, teams) and the demo team's seeding work on this; server/reference-state.ts, the
 * class that composes stores and services, is above them all, so that no file below imports it back.
 */
import type { Clock } from '../../core/clock.js';
import type { World } from '../world/api.js';
import type { Accounts } from './accounts.js';
import type { Background } from './background.js';
import type { IdSource } from './ids.js';
import type { Projects } from './projects.js';
import type { ResolvedOptions } from './server-options.js';
import type { ServicesOptions } from './services-options.js';
import type { SimClock } from './sim-clock.js';
import type { Webhooks } from './webhooks.js';

export interface Stores {
  readonly options: ResolvedOptions;
  readonly clock: Clock;
  readonly world: World;
  readonly sim: SimClock;
  readonly background: Background;
  readonly ids: IdSource;
  readonly accounts: Accounts;
  readonly projects: Projects;
  readonly webhooks: Webhooks;
  /** The services' options; kept across a reset (configureServices changes them). */
  servicesOptions: ServicesOptions;
  /** The month whose research credits are being spent (`YYYY-MM` of the simulated clock). */
  month(): string;
  nowIso(): string;
}
