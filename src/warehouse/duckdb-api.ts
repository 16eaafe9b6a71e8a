/**
 * DuckDB's Node API, the one door every module goes through. @duckdb/node-api is a CommonJS package of about 150
 * files: imported from ES modules, Node first lexes every one of them to find its named exports, which doubled what
 * `vwh query "select 1"` cost (docs/lab/2026-12-query-startup.md); `require` loads the same modules without that.
 * Types come from the package itself (`import type`); the values a module needs are re-exported here by name.
 */
import { createRequire } from 'node:module';
import type * as Api from '@duckdb/node-api';
import type Bindings from '@duckdb/node-bindings';

const api = createRequire(import.meta.url)('@duckdb/node-api') as typeof Api;

export const DuckDBInstance = api.DuckDBInstance;
export type DuckDBInstance = Api.DuckDBInstance;
export const DuckDBDataChunk = api.DuckDBDataChunk;
export type DuckDBDataChunk = Api.DuckDBDataChunk;
export const DuckDBTypeId = api.DuckDBTypeId;
export type DuckDBTypeId = Api.DuckDBTypeId;
export const JsonDuckDBValueConverter = api.JsonDuckDBValueConverter;
export const JSDuckDBValueConverter = api.JSDuckDBValueConverter;
export const { BOOLEAN, DATE, DOUBLE, LIST, TIMESTAMP, VARCHAR, listValue, timestampValue, version } = api;

/** The N-API binding under it (the loader appends data chunks through it). */
export const bindings = createRequire(import.meta.url)('@duckdb/node-bindings') as typeof Bindings;
