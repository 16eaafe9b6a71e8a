/** The Hono environment of the public API routes: the authenticated key and its team. */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { ApiKeyRecord, Team } from '../state/accounts.js';

export interface ApiEnv {
  Bindings: HttpBindings;
  Variables: { key: ApiKeyRecord; team: Team };
}

export type ApiContext = Context<ApiEnv>;
