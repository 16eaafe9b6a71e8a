import type * as z from 'zod';
import type { DataOf, EndpointDef } from '../../api/endpoint.js';
import type { CallParams } from '../../client/api-client.js';
import { fetchList } from '../fetch.js';
import type { Parent, StreamDef, UnitContext } from '../types.js';

/** A snapshot stream made of one list request per parent, landed whole into one table. */
export interface ListStreamSpec<E extends EndpointDef, I extends z.ZodType> {
  name: string;
  table: string;
  parents: StreamDef['parents'];
  /** Refreshed on the rotation rather than every night (see `StreamDef.rotated`). */
  rotated?: StreamDef['rotated'];
  endpoint: E;
  params(parent: Parent, ctx: UnitContext): CallParams<E>;
  /** The schema of one list item: a drifted item is rejected on its own, its siblings land. */
  item: I;
  /** Where the list sits in the response data. */
  pick(raw: unknown): unknown;
  /** The columns that key the rows one unit replaces (besides team_id); every row carries them. */
  partition(parent: Parent, ctx: UnitContext): Record<string, string>;
  /** One item's row; `list` is the whole response data (its totals and limits), undefined when it drifted. */
  row(item: z.output<I>, list: DataOf<E> | undefined): Record<string, unknown>;
}

export function listStream<E extends EndpointDef, I extends z.ZodType>(spec: ListStreamSpec<E, I>): StreamDef {
  return {
    name: spec.name,
    tables: [spec.table],
    grain: 'snapshot',
    parents: spec.parents,
    ...(spec.rotated ? { rotated: spec.rotated } : {}),
    estimate: () => 1,
    async fetch(ctx, parent) {
      const { items, data, rejected } = await fetchList(
        ctx,
        spec.endpoint,
        spec.params(parent, ctx),
        spec.item,
        spec.pick,
      );
      const equals = spec.partition(parent, ctx);
      // The partition's values win over an item's own: the rows must be exactly those the next unit deletes.
      const rows = items.map((item) => ({ ...spec.row(item, data), ...equals }));
      return { loads: [{ table: spec.table, partition: { equals }, rows }], rejected };
    },
  };
}

/** `{ project_id }` of a project parent (its path parameters and its partition). */
export function projectKey(parent: Parent): { project_id: string } {
  return { project_id: parent.projectId ?? parent.id };
}
