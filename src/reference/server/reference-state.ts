/**
 * Everything the reference server holds, in one object: the simulated clock, the stores (one module per entity
 * family under state/), the services (services/), background work, the rate limiter, the fault injector and the
 * world. `reset()` empties
 * the stores and re-seeds the demo team with the same demo key.
 */
import type { Clock } from '../../core/clock.js';
import { registerSecret } from '../../core/errors.js';
import { FaultInjector } from '../faults/injector.js';
import { createServices, type Services } from '../services/registry.js';
import { Accounts } from '../state/accounts.js';
import { Background } from '../state/background.js';
import { seedDemoTeam } from '../state/demo-team.js';
import { IdempotencyStore } from '../state/idempotency.js';
import { IdSource } from '../state/ids.js';
import { Projects } from '../state/projects.js';
import { RateLimiter } from '../state/rate-limit.js';
import type { ResolvedOptions } from '../state/server-options.js';
import { defaultServicesOptions, type ServicesOptions } from '../state/services-options.js';
import { SimClock } from '../state/sim-clock.js';
import type { Stores } from '../state/stores.js';
import { Webhooks } from '../state/webhooks.js';
import type { World } from '../world/api.js';

export interface CallbackRecord {
  url: string;
  body: unknown;
  status: number | null;
  attempt: number;
  /** Why the target was refused (net/outbound.ts), when it was. */
  refused?: string;
}

export class ReferenceState implements Stores {
  readonly sim: SimClock;
  readonly rate: RateLimiter;
  readonly faults: FaultInjector;
  readonly background: Background;
  ids!: IdSource;
  accounts!: Accounts;
  projects!: Projects;
  webhooks!: Webhooks;
  idempotency!: IdempotencyStore;
  /** The second document's services and the action workflows (src/reference/services), rebuilt by reset(). */
  services!: Services;
  /** Their options; kept across reset() (configureServices changes them). */
  servicesOptions: ServicesOptions = defaultServicesOptions();
  /** Control plane: makes POST /account/api-key answer 500 `Authentication service unavailable`. */
  authOutage = false;
  /** Bootstrap callbacks sent (extension, read through GET /_reference/callbacks). */
  callbacks: CallbackRecord[] = [];
  demo: { apiKey: string; teamId: string } | null = null;

  constructor(
    readonly options: ResolvedOptions,
    readonly clock: Clock,
    readonly world: World,
  ) {
    this.sim = new SimClock(clock, options.today);
    this.rate = new RateLimiter(clock, options.rateWindowMs);
    this.faults = new FaultInjector(options.seed);
    this.faults.set(options.faults);
    this.background = new Background(clock, () => this.sim.now(), options.backgroundDelayMs);
    this.resetStores();
  }

  /** The month whose research credits are being spent (`YYYY-MM` of the simulated clock). */
  month(): string {
    return this.sim.today().slice(0, 7);
  }

  nowIso(): string {
    return this.sim.iso();
  }

  reset(): void {
    this.background.stop();
    this.rate.reset();
    this.faults.set(this.options.faults);
    this.authOutage = false;
    this.callbacks = [];
    this.resetStores();
  }

  private resetStores(): void {
    this.ids = new IdSource(this.options.seed);
    this.accounts = new Accounts(this.ids);
    this.projects = new Projects();
    this.webhooks = new Webhooks();
    this.idempotency = new IdempotencyStore();
    if (this.options.demo) {
      this.demo = seedDemoTeam(this, this.demo?.apiKey);
      registerSecret(this.demo.apiKey);
    }
    this.services = createServices(this);
  }
}
