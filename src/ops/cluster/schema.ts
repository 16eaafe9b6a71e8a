/**
 * The fleet's own tables in PostgreSQL (schema `vwh`), beside pg-boss's queue (schema `pgboss`): the workers and
 * their heartbeats, the nights asked for (one row per `vwh run` or cron firing: a firing's unique row is how two
 * schedulers fire it once), and the run ledger of every team's night (one row per attempt, with the worker's host
 * and pid). Idempotent: every process that opens the cluster runs it under one advisory lock.
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
`;
