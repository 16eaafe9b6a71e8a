/**
 * The endpoint catalogue: one entry per endpoint of the specs, keyed by a stable id. The client builds its calls
 * and the reference server its routes from these entries; the OpenAPI document is generated from them.
 */
import type { EndpointDef } from './endpoint.js';
import { accountEndpoints } from './endpoints/account.js';
import { actionEndpoints } from './endpoints/actions.js';
import { aliasEndpoints } from './endpoints/aliases.js';
import { analyticsEndpoints } from './endpoints/analytics.js';
import { bootstrapEndpoints } from './endpoints/bootstrap.js';
import { competitorEndpoints } from './endpoints/competitors.js';
import { contentEndpoints } from './endpoints/content.js';
import { projectEndpoints } from './endpoints/projects.js';
import { promptEndpoints } from './endpoints/prompts.js';
import { recordingEndpoints } from './endpoints/recording.js';
import { teamEndpoints } from './endpoints/teams.js';
import { webhookEndpoints } from './endpoints/webhooks.js';

export const catalogue = {
  ...accountEndpoints,
  ...projectEndpoints,
  ...promptEndpoints,
  ...competitorEndpoints,
  ...aliasEndpoints,
  ...recordingEndpoints,
  ...analyticsEndpoints,
  ...actionEndpoints,
  ...webhookEndpoints,
  ...contentEndpoints,
  ...bootstrapEndpoints,
  ...teamEndpoints,
} as const;

export type Catalogue = typeof catalogue;
export type EndpointId = keyof Catalogue;
export type Endpoint<Id extends EndpointId> = Catalogue[Id];

/** The entry of one endpoint, fully typed: `endpoint('getPromptChats').data`. */
export function endpoint<Id extends EndpointId>(id: Id): Catalogue[Id] {
  const def = catalogue[id];
  if (!def) throw new TypeError(`unknown endpoint id: ${String(id)}`);
  return def;
}

/** Every entry, in catalogue order. */
export function allEndpoints(): EndpointDef[] {
  return Object.values(catalogue) as EndpointDef[];
}
