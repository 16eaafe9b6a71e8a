/** `GET /_reference/truth/{actions,events,visibility}`: the world's ground truth (control/truth.ts). */
import type { Hono } from 'hono';
import * as truth from '../control/truth.js';
import type { ReferenceState } from '../server/reference-state.js';

export function truthRoutes(app: Hono, state: ReferenceState): void {
  app.get('/truth/actions', (c) => c.json(truth.truthActions(state, c.req.query('project_id'))));
  app.get('/truth/events', (c) => c.json(truth.truthEvents(state, c.req.query('project_id'))));
  app.get('/truth/visibility', (c) =>
    c.json(
      truth.truthVisibility(state, {
        project_id: c.req.query('project_id'),
        date_from: c.req.query('date_from'),
        date_to: c.req.query('date_to'),
        by: c.req.query('by'),
      }),
    ),
  );
}
