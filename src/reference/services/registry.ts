/**
 * The services' state, an explicit member of the reference state (`state.services`, options in
 * `state.servicesOptions`): a reset of the reference state rebuilds it with the other stores; the options stay.
 */

import type { Accounts } from '../state/accounts.js';
import type { ServicesOptions } from '../state/services-options.js';
import type { Stores } from '../state/stores.js';
import { BootstrapMachine } from './bootstrap/machine.js';
import { STEPS } from './content/pipeline.js';
import { ContentStore } from './content/store.js';
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

/** Sets service options for this server (e.g. `allowHttpLoopback` for tests delivering to a local receiver). */
export function configureServices(state: Stores, patch: Partial<ServicesOptions>): ServicesOptions {
  state.servicesOptions = { ...state.servicesOptions, ...patch };
  return state.servicesOptions;
}

/** The services of a reference state, built with its stores (ReferenceState's constructor and reset()). */
export function createServices(state: Stores & { readonly services: Services }): Services {
  const membership = new Membership(state.accounts, state.options.seed);
  const content = new ContentStore(
    () => state.ids,
    { now: () => state.sim.now(), stepMs: () => Math.max(1, Math.floor(state.background.delayMs / STEPS)) },
    state.options.seed,
    state.servicesOptions.maxConcurrentTasks,
  );
  return {
    accounts: state.accounts,
    membership,
    teams: new TeamRules(membership, () => state.nowIso()),
    content,
    bootstrap: new BootstrapMachine(state),
    workflows: new WorkflowEngine(
      state,
      () => state.services.content,
      () => state.servicesOptions,
    ),
  };
}
