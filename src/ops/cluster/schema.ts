/**
 * The fleet's own tables in PostgreSQL (schema `vwh`), beside pg-boss's queue (schema `pgboss`): the workers and
 * their heartbeats, the nights asked for (one row per `vwh run` or cron firing: a firing's unique row is how two
 * schedulers fire it once), and the run ledger of every team's night (one row per attempt, with the worker's host
 * and pid), and the lake's manifest (lake-catalog.ts: each scope's writer, tables and partitions' files, replaced in
 * one transaction by a publish). Idempotent: every process that opens the cluster runs it under one advisory lock.
 */
export const CLUSTER_DDL = `
create schema if not exists vwh;
create table if not exists vwh.workers (
  worker_id text primary key,
  host text not null,
  pid integer not null,
  concurrency integer not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  stopped_at timestamptz
);
create table if not exists vwh.nights (
  night_id text primary key,
  trigger text not null,
  fire_at timestamptz unique,
  created_at timestamptz not null default now(),
  teams text[] not null,
  options jsonb not null default '{}'
);
create table if not exists vwh.team_runs (
  run_id text primary key,
  night_id text not null,
  team text not null,
  job_id uuid not null,
  attempt integer not null,
  worker_id text not null,
  host text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  ended_at timestamptz,
  status text not null,
  exit_code integer,
  error text,
  stages jsonb
);
create index if not exists team_runs_by_team on vwh.team_runs (team, started_at desc);
create index if not exists team_runs_by_night on vwh.team_runs (night_id);
create table if not exists vwh.lake_scopes (
  lake text not null,
  scope text not null,
  run_id text not null,
  published_at timestamptz not null default now(),
  writer jsonb not null,
  primary key (lake, scope)
);
create table if not exists vwh.lake_tables (
  lake text not null,
  scope text not null,
  table_key text not null,
  path text not null,
  partition_by text[] not null,
  columns jsonb not null,
  primary key (lake, scope, table_key)
);
create table if not exists vwh.lake_partitions (
  lake text not null,
  scope text not null,
  table_key text not null,
  partition text not null,
  slot integer not null default -1,
  team_id text,
  files text[] not null,
  hash text not null,
  rows bigint not null,
  bytes bigint not null,
  storage_key text,
  storage_teams text,
  run_id text not null,
  published_at timestamptz not null default now(),
  primary key (lake, table_key, partition, slot)
);
create index if not exists lake_partitions_by_scope on vwh.lake_partitions (lake, scope);
`;
