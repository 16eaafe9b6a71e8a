/** Turning a catalogue entry and its values into a URL path, a query string, or a router pattern. */
import type { EndpointDef } from './endpoint.js';

const PARAM = /\{([a-z_]+)\}/g;

/** Fills the path template (relative to the service base), URL-encoding each value. Throws on a missing value. */
export function buildPath(def: Pick<EndpointDef, 'path' | 'id'>, params: object = {}): string {
  const values = params as Record<string, unknown>;
  return def.path.replace(PARAM, (_match, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`${def.id}: path parameter ${name} is missing`);
    }
    return encodeURIComponent(String(value));
  });
}

/** Base path plus filled path: `/api/public/v1/projects/…`. */
export function fullPath(def: Pick<EndpointDef, 'path' | 'id' | 'basePath'>, params: object = {}): string {
  return def.basePath + buildPath(def, params);
}

/** Router pattern with `:name` parameters, base included (`/api/public/v1/projects/:project_id`), for Hono. */
export function routePattern(def: Pick<EndpointDef, 'path' | 'basePath'>): string {
  return def.basePath + def.path.replace(PARAM, (_match, name: string) => `:${name}`);
}

/** OpenAPI path with `{name}` parameters, base included. */
export function openApiPath(def: Pick<EndpointDef, 'path' | 'basePath'>): string {
  return def.basePath + def.path;
}

/**
 * Query string (without `?`) from typed values: arrays are joined with commas (the `providers` convention),
 * undefined and null are left out. Empty string when nothing is set.
 */
export function encodeQuery(values: object = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    search.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  return search.toString();
}
