/**
 * Streams as declarations (as dlt's `rest_api` and Airbyte's low-code CDK): a stream is its parents, its grain and
 * the requests one unit makes; a request is a catalogue endpoint, its params, the tables it lands with the rows one
 * unit replaces, and its row mapping. One engine asks, pages by the endpoint's declared `pagination`, salvages
 * drifted lists and gathers the loads.
 */
import type * as z from 'zod';
import type { DataOf, EndpointDef } from '../api/endpoint.js';
import { buildPath } from '../api/paths.js';
import type { CallParams } from '../client/api-client.js';
import { hasNextPage, pageQuery, paginatedParts, promisedPages } from '../client/paging.js';
import type { DayRange } from '../core/days.js';
import { VwhError } from '../core/errors.js';
import type { Partition, TableLoad } from '../warehouse/load-types.js';
import { fetchList, fetchOne } from './fetch.js';
import type { Parent, Rejection, StreamDef, UnitContext } from './types.js';

/** One unit as its requests see it. */
export interface UnitScope {
  ctx: UnitContext;
  parent: Parent;
  range: DayRange;
  /** The data of the unit's earlier requests by endpoint id (the last page of each): see `dataOf`. */
  fetched: Map<string, unknown>;
}

/** The data an earlier request of the unit got from `endpoint` (undefined when it drifted or was not asked). */
export function dataOf<E extends EndpointDef>(unit: UnitScope, endpoint: E): DataOf<E> | undefined {
  return unit.fetched.get(endpoint.id) as DataOf<E> | undefined;
}

/** One page as its row mapping sees it. */
export interface PageScope<S, D> extends UnitScope {
  slice: S;
  /** 1-based page number. */
  page: number;
  /** The page size asked for (paged endpoints). */
  pageSize: number;
  /** The page's parsed data; undefined when it drifted (a list's salvaged items still come). */
  data: D | undefined;
}

export type Row = Record<string, unknown>;
/** Rows by table (`raw.chats` → rows). */
export type TableRows = Record<string, Row[]>;

interface RequestCommon<E extends EndpointDef, S> {
  endpoint: E;
  /**
   * What one unit asks for in turn with this request (overview's prompt types, the top domains of a project): one
   * request (or one run of pages) each. Default: one.
   */
  each?(unit: UnitScope): readonly S[] | Promise<readonly S[]>;
  /** Path and query of one ask; the paging query is added from the endpoint's declared pagination. */
  params(unit: UnitScope, slice: S): CallParams<E>;
  /** Page size asked for, when the endpoint pages. */
  pageSize?: number;
  /** Largest number of pages of one ask (default 10 000, a safety stop). */
  maxPages?(unit: UnitScope): number;
  /**
   * The tables this request lands and, for each, the rows one unit replaces. A partition that depends on the slice
   * gives a load per slice; without slices (an empty `each`) it is asked with `undefined`, so the unit still
   * replaces what an earlier sync landed there.
   */
  into: Record<string, (unit: UnitScope, slice: S | undefined) => Partition>;
  /** Without this request's data (a drifted body) the unit lands nothing: the rest has nothing to be keyed on. */
  required?: boolean;
}

/** A request whose data holds a list: a drifted item is rejected on its own, its siblings land. */
export interface ListRequest<E extends EndpointDef, I extends z.ZodType, S> extends RequestCommon<E, S> {
  kind: 'list';
  item: I;
  /** Where the list sits in the data. */
  pick(raw: unknown): unknown;
  /**
   * An item's identity (its id). With it, an id already read in this ask (within the page or on an earlier page) is
   * dropped with a warning naming the stream and how many, and a page past the first holding only ids already read
   * is an API going round its pages: the unit stops (`API_CONTRACT`).
   */
  key?(item: z.output<I>): string;
  /** One item's row, for a request into one table; the partition's values are stamped over it. */
  row?(item: z.output<I>, page: PageScope<S, DataOf<E>>): Row;
  /** A page's rows by table, for a request into several tables (rows carry their partition's columns). */
  rows?(items: z.output<I>[], page: PageScope<S, DataOf<E>>): TableRows;
}

/** A request whose data is one object: a drifted body is rejected whole and lands no rows. */
export interface DataRequest<E extends EndpointDef, S> extends RequestCommon<E, S> {
  kind: 'data';
  /** A page's rows by table (rows carry their partition's columns). */
  rows(data: DataOf<E>, page: PageScope<S, DataOf<E>>): TableRows;
}

/** A request of any endpoint, item and slice type (what `defineStream` holds). */
// biome-ignore lint/suspicious/noExplicitAny: the request's own types are checked where it is declared.
type AnyRequest = ListRequest<any, any, any> | DataRequest<any, any>;

/** Declares a list request (typed by its endpoint and item schema). */
export function listRequest<E extends EndpointDef, I extends z.ZodType, S = undefined>(
  spec: Omit<ListRequest<E, I, S>, 'kind'>,
): AnyRequest {
  if (Boolean(spec.row) === Boolean(spec.rows)) throw new TypeError('a list request maps rows with row or rows');
  if (spec.row && Object.keys(spec.into).length !== 1) throw new TypeError('row maps into exactly one table');
  return { kind: 'list', ...spec };
}

/** Declares a request whose data is one object. */
export function dataRequest<E extends EndpointDef, S = undefined>(spec: Omit<DataRequest<E, S>, 'kind'>): AnyRequest {
  return { kind: 'data', ...spec };
}

export interface StreamSpec
  extends Pick<StreamDef, 'name' | 'grain' | 'parents' | 'unavailable' | 'rotated' | 'readsLanded'> {
  /** Requests one unit is expected to make, for the plan (default: one per request). */
  estimate?: StreamDef['estimate'];
  /** What one unit asks, in order. */
  requests: readonly AnyRequest[];
}

const MAX_PAGES = 10_000;
const ONE = [undefined] as const;

export function defineStream(spec: StreamSpec): StreamDef {
  const tables = [...new Set(spec.requests.flatMap((r) => Object.keys(r.into)))];
  const count = spec.requests.length;
  return {
    name: spec.name,
    tables,
    grain: spec.grain,
    parents: spec.parents,
    unavailable: spec.unavailable,
    rotated: spec.rotated,
    readsLanded: spec.readsLanded,
    estimate: spec.estimate ?? (() => count),
    async fetch(ctx, parent, range) {
      const unit: UnitScope = { ctx, parent, range, fetched: new Map() };
      const loads: TableLoad[] = [];
      const rejected: Rejection[] = [];
      for (const request of spec.requests) {
        const read = await runRequest(spec.name, request, unit, loads, rejected);
        if (read === 'unreadable') {
          // A body with nothing readable (null, not the contract's shape) says nothing of the rows it would replace:
          // the unit lands none of its loads, so what earlier syncs landed stays; its rejection says what came.
          ctx.logger.warn('the API answered a body that breaks its contract; the unit keeps the rows landed before', {
            stream: spec.name,
            endpoint: request.endpoint.id,
            parent: parent.id,
          });
          return { loads: [], rejected };
        }
        if (read === 'drifted' && request.required) return { loads: [], rejected };
      }
      return { loads, rejected };
    },
  };
}

/**
 * Asks one request for every slice and page, adding rows to `loads`: `intact`, `drifted` when a page's data drifted
 * (its list salvaged item by item), `unreadable` when a page had nothing to read at all.
 */
async function runRequest(
  stream: string,
  request: AnyRequest,
  unit: UnitScope,
  loads: TableLoad[],
  rejected: Rejection[],
): Promise<'intact' | 'drifted' | 'unreadable'> {
  const { endpoint } = request;
  const slices: readonly unknown[] = request.each ? await request.each(unit) : ONE;
  const loadOf = loadsFor(request, unit, loads);
  if (slices.length === 0) for (const table of Object.keys(request.into)) loadOf(table, undefined);
  const paged = endpoint.pagination !== 'none';
  const size = request.pageSize ?? 0;
  const maxPages = paged ? (request.maxPages?.(unit) ?? MAX_PAGES) : 1;
  let read: 'intact' | 'drifted' | 'unreadable' = 'intact';
  let duplicates = 0;
  for (const slice of slices) {
    // Every table's load exists before the first page: a unit whose pages bring no rows still replaces the old ones.
    for (const table of Object.keys(request.into)) loadOf(table, slice);
    const base = request.params(unit, slice);
    const seen = request.kind === 'list' && request.key ? new Set<string>() : undefined;
    let promised: number | undefined;
    for (let index = 0; index < maxPages; index++) {
      if (promised !== undefined && index >= promised) {
        throw brokenPaging(stream, request, base, index, `is past the ${promised} page(s) its first page promised`);
      }
      const params = paged
        ? { ...base, query: { ...(base.query as object), ...pageQuery(endpoint.pagination, index, size) } }
        : base;
      const scope = { ...unit, slice, page: index + 1, pageSize: size, data: undefined as unknown };
      let count: number;
      let keptItems: number;
      if (request.kind === 'list') {
        const res = await fetchList(unit.ctx, endpoint, params, request.item, request.pick);
        rejected.push(...res.rejected);
        scope.data = res.data;
        count = res.data === undefined ? res.items.length + res.rejected.length : res.items.length;
        keptItems = res.items.length;
        if (seen && request.key && res.items.length > 0) {
          const before = res.items.length;
          const fresh = res.items.filter((item) => !seen.has(request.key?.(item) ?? ''));
          if (index > 0 && fresh.length === 0) {
            throw brokenPaging(
              stream,
              request,
              base,
              index,
              `holds only ids earlier pages held (${before} of ${before})`,
            );
          }
          // Within the page too: the first of an id lands, its repeats do not.
          const unique = fresh.filter((item) => {
            const key = request.key?.(item) ?? '';
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
          duplicates += before - unique.length;
          res.items = unique;
        }
        if (request.row) {
          const table = Object.keys(request.into)[0] as string;
          const load = loadOf(table, slice);
          const equals = load.partition?.equals;
          // The partition's values win over an item's own: the rows must be exactly those the next unit deletes.
          for (const item of res.items) load.rows.push({ ...request.row(item, scope), ...equals });
        } else if (request.rows) {
          addRows(request.rows(res.items, scope), slice, loadOf);
        }
      } else {
        const res = await fetchOne(unit.ctx, endpoint, params);
        rejected.push(...res.rejected);
        scope.data = res.data;
        count = 0;
        keptItems = res.data === undefined ? 0 : 1;
        if (res.data !== undefined) addRows(request.rows(res.data, scope), slice, loadOf);
      }
      if (scope.data === undefined) {
        if (keptItems === 0) return 'unreadable';
        read = 'drifted';
      }
      unit.fetched.set(endpoint.id, scope.data);
      if (!paged || !hasNextPage(endpoint.pagination, { index, size, data: scope.data, count, kept: keptItems })) break;
      if (index === 0) promised = promisedPages(endpoint.pagination, scope.data, size);
      const answered = answeredPage(scope.data);
      if (answered !== undefined && answered !== index + 1) {
        throw brokenPaging(stream, request, base, index, `was answered as page ${answered}`);
      }
    }
  }
  if (duplicates > 0) {
    unit.ctx.logger.warn('the API listed the same ids more than once; each lands once', {
      stream,
      endpoint: endpoint.id,
      parent: unit.parent.id,
      duplicates,
    });
  }
  return read;
}

/** The `page` a page-total body says it is (its first paginated part's), when it says one. */
function answeredPage(data: unknown): number | undefined {
  return paginatedParts(data)[0]?.page;
}

/**
 * A unit whose API pages without end (a page repeating ids already read, a page past what the first page promised):
 * it stops with this error, its rows not landed, and the run ends partial. `index` is the 0-based page.
 */
function brokenPaging(
  stream: string,
  request: AnyRequest,
  base: CallParams<EndpointDef>,
  index: number,
  what: string,
): VwhError {
  const { endpoint } = request;
  const path = buildPath(endpoint, (base as { path?: object }).path ?? {});
  return new VwhError(
    'API_CONTRACT',
    `stream ${stream}: page ${index + 1} of ${endpoint.method} ${path} ${what}: the API pages without end; this unit ` +
      'stops, keeping the rows landed before it, and the next sync asks again',
    { details: { stream, endpoint: endpoint.id, path, page: index + 1 } },
  );
}

/** The load of (table, slice): slices whose partitions are equal share one load. */
function loadsFor(
  request: AnyRequest,
  unit: UnitScope,
  loads: TableLoad[],
): (table: string, slice: unknown) => TableLoad {
  const byKey = new Map<string, TableLoad>();
  return (table, slice) => {
    const partitionOf = request.into[table];
    if (!partitionOf) throw new TypeError(`rows for ${table}, which the request does not land`);
    const partition = partitionOf(unit, slice);
    const key = `${table}|${JSON.stringify(partition)}`;
    let load = byKey.get(key);
    if (!load) {
      load = { table, partition, rows: [] };
      byKey.set(key, load);
      loads.push(load);
    }
    return load;
  };
}

function addRows(rows: TableRows, slice: unknown, loadOf: (table: string, slice: unknown) => TableLoad): void {
  for (const [table, list] of Object.entries(rows)) {
    const load = loadOf(table, slice);
    if (load.rows.length === 0) load.rows = list;
    else for (const row of list) load.rows.push(row);
  }
}
