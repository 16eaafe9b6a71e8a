/**
 * The services' state, attached to a `ReferenceState` through a WeakMap (the reference state knows nothing of
 * them). A reset of the reference state replaces its stores; the services notice (their `Accounts` is no longer
 * the state's) and start afresh too.
 */
import type { ReferenceState } from '../reference-state.js';
import type { Accounts } from '../state/accounts.js';
import { BootstrapMachine } from './bootstrap/machine.js';
import { STEPS } from './content/pipeline.js';
import { ContentStore } from './content/store.js';
import { defaultServicesOptions, type ServicesOptions } from './options.js';
import { Membership } from './teams/membership.js';
import { TeamRules } from './teams/rules.js';
import { WorkflowEngine } from './workflows/engine.js';

export interface Services {
  accounts: Accounts;
  membership: Membership;
  teams: TeamRules;
  content: ContentStore;
  bootstrap: BootstrapMachine;
  workflows: WorkflowEngine;
}

const services = new WeakMap<ReferenceState, Services>();
const options = new WeakMap<ReferenceState, ServicesOptions>();

export function servicesOptions(state: ReferenceState): ServicesOptions {
  let current = options.get(state);
  if (!current) {
    current = defaultServicesOptions();
    options.set(state, current);
  }
  return current;
}

/** Sets service options for this server (e.g. `allowHttpLoopback` for tests delivering to a local receiver). */
export function configureServices(state: ReferenceState, patch: Partial<ServicesOptions>): ServicesOptions {
  const next = { ...servicesOptions(state), ...patch };
  options.set(state, next);
  return next;
}

export function servicesOf(state: ReferenceState): Services {
  const current = services.get(state);
  if (current && current.accounts === state.accounts) return current;
  const membership = new Membership(state.accounts, state.options.seed);
  const content = new ContentStore(
    () => state.ids,
    { now: () => state.sim.now(), stepMs: () => Math.max(1, Math.floor(state.background.delayMs / STEPS)) },
    state.options.seed,
    servicesOptions(state).maxConcurrentTasks,
  );
  const fresh: Services = {
    accounts: state.accounts,
    membership,
    teams: new TeamRules(membership, () => state.nowIso()),
    content,
    bootstrap: new BootstrapMachine(state),
    workflows: new WorkflowEngine(
      state,
      () => servicesOf(state).content,
      () => servicesOptions(state),
    ),
  };
  services.set(state, fresh);
  return fresh;
}
