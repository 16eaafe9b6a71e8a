/**
 * The lake's manifest in the cluster's PostgreSQL (export/lake/catalog.ts): `vwh.lake_partitions` lists every
 * partition's files with its hash, rows and the run that wrote them; `vwh.lake_tables` each scope's tables and
 * columns (the shape every writer must keep); `vwh.lake_scopes` each scope's last publish. A publish holds the
 * lake's advisory lock (a session lock: a dead process's is released with its connection), replaces its scopes'
 * rows in one transaction, then writes `_manifest.json` and deletes the replaced files before unlocking.
 */
import type { Pool, PoolClient } from 'pg';
import type { LakeCatalog } from '../../export/lake/catalog.js';
import { byPartition, LAKE_FORMAT, type ManifestTable, type ScopeManifest } from '../../export/lake/manifest.js';

/** The advisory lock's first key: the lake's name hashed is the second. */
const LOCK_CLASS = 'vwh-lake';

/**
 * The catalog of lake `lake` (its name in the tables: the lake's folder relative to the shared folder, `lake` by
 * default, so every machine names it alike wherever it mounts the folder).
 */
export function postgresLakeCatalog(pool: Pool, lake: string): LakeCatalog {
  return {
    name: `PostgreSQL vwh.lake_partitions (lake "${lake}")`,
    read: async () => {
      const client = await pool.connect();
      try {
        return await readScopes(client, lake);
      } finally {
        client.release();
      }
    },
    async publish(change, after) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('select pg_advisory_lock(hashtext($1), hashtext($2))', [LOCK_CLASS, lake]);
        try {
          await client.query('begin');
          const current = await readScopes(client, lake);
          const scopes = await change(current);
          if (scopes.length > 0) await writeScopes(client, lake, scopes);
          await client.query('commit');
          const committed = new Map(current);
          for (const scope of scopes) committed.set(scope.writer.scope, scope);
          await after(new Map([...committed].sort(([a], [b]) => a.localeCompare(b))));
        } catch (error) {
          await client.query('rollback').catch(() => {});
          throw error;
        } finally {
          await client
            .query('select pg_advisory_unlock(hashtext($1), hashtext($2))', [LOCK_CLASS, lake])
            .catch(() => {});
        }
      } catch (error) {
        broken = error as Error;
        throw error;
      } finally {
        // a connection that failed mid-way is closed, not reused: its session (and lock) ends with it
        client.release(broken);
      }
    },
  };
}

interface PartitionRow {
  scope: string;
  table_key: string;
  partition: string;
  slot: number;
  team_id: string | null;
  files: string[];
  hash: string;
  rows: string;
  bytes: string;
  storage_key: string | null;
  storage_teams: string | null;
}

async function readScopes(client: PoolClient, lake: string): Promise<Map<string, ScopeManifest>> {
  const scopes = await client.query<{ scope: string; writer: ScopeManifest['writer'] }>(
    'select scope, writer from vwh.lake_scopes where lake = $1 order by scope',
    [lake],
  );
  const tables = await client.query<{ scope: string; table_key: string } & Omit<ManifestTable, 'partitions'>>(
    'select scope, table_key, path, partition_by, columns from vwh.lake_tables where lake = $1',
    [lake],
  );
  const parts = await client.query<PartitionRow>(
    `select scope, table_key, partition, slot, team_id, files, hash, rows, bytes, storage_key, storage_teams
       from vwh.lake_partitions where lake = $1`,
    [lake],
  );
  const out = new Map<string, ScopeManifest>();
  for (const { scope, writer } of scopes.rows) out.set(scope, { format: LAKE_FORMAT, writer, tables: {} });
  for (const { scope, table_key, path, partition_by, columns } of tables.rows) {
    const manifest = out.get(scope);
    if (manifest) manifest.tables[table_key] = { path, partition_by, columns, partitions: [] };
  }
  for (const row of parts.rows) {
    out.get(row.scope)?.tables[row.table_key]?.partitions.push({
      path: row.partition,
      ...(row.slot >= 0 ? { slot: row.slot } : {}),
      team_id: row.team_id,
      rows: Number(row.rows),
      bytes: Number(row.bytes),
      hash: row.hash,
      files: row.files,
      ...(row.storage_key ? { storage_key: row.storage_key, storage_teams: row.storage_teams ?? undefined } : {}),
    });
  }
  for (const manifest of out.values()) {
    for (const table of Object.values(manifest.tables)) table.partitions.sort(byPartition);
  }
  return out;
}

/**
 * Replaces the scopes' rows: their tables, their partitions (a partition whose files are unchanged keeps the run and
 * the time that wrote them), their writer.
 */
async function writeScopes(client: PoolClient, lake: string, scopes: ScopeManifest[]): Promise<void> {
  const own = scopes.map((s) => s.writer.scope);
  const runId = scopes[0]?.writer.run_id ?? '';
  const partitions: (Omit<PartitionRow, 'rows' | 'bytes'> & { rows: number; bytes: number })[] = [];
  const tables: unknown[] = [];
  for (const scope of scopes) {
    for (const [key, table] of Object.entries(scope.tables)) {
      tables.push({
        scope: scope.writer.scope,
        table_key: key,
        path: table.path,
        partition_by: table.partition_by,
        columns: table.columns,
      });
      for (const p of table.partitions) {
        partitions.push({
          scope: scope.writer.scope,
          table_key: key,
          partition: p.path,
          slot: p.slot ?? -1,
          team_id: p.team_id,
          files: p.files,
          hash: p.hash,
          rows: p.rows,
          bytes: p.bytes,
          storage_key: p.storage_key ?? null,
          storage_teams: p.storage_teams ?? null,
        });
      }
    }
  }
  const json = JSON.stringify(partitions);
  await client.query(
    `delete from vwh.lake_partitions p where p.lake = $1 and p.scope = any($2) and not exists (
       select 1 from jsonb_to_recordset($3::jsonb) as n(table_key text, partition text, slot integer, files text[])
        where n.table_key = p.table_key and n.partition = p.partition and n.slot = p.slot and n.files = p.files)`,
    [lake, own, json],
  );
  await client.query(
    `insert into vwh.lake_partitions as p (lake, scope, table_key, partition, slot, team_id, files, hash, rows, bytes,
            storage_key, storage_teams, run_id)
     select $1, n.scope, n.table_key, n.partition, n.slot, n.team_id, n.files, n.hash, n.rows, n.bytes, n.storage_key,
            n.storage_teams, $3
       from jsonb_to_recordset($2::jsonb) as n(scope text, table_key text, partition text, slot integer, team_id text,
            files text[], hash text, rows bigint, bytes bigint, storage_key text, storage_teams text)
     on conflict (lake, table_key, partition, slot) do update set scope = excluded.scope, team_id = excluded.team_id,
            hash = excluded.hash, rows = excluded.rows, bytes = excluded.bytes, storage_key = excluded.storage_key,
            storage_teams = excluded.storage_teams`,
    [lake, json, runId],
  );
  await client.query('delete from vwh.lake_tables where lake = $1 and scope = any($2)', [lake, own]);
  await client.query(
    `insert into vwh.lake_tables (lake, scope, table_key, path, partition_by, columns)
     select $1, t.scope, t.table_key, t.path, t.partition_by, t.columns
       from jsonb_to_recordset($2::jsonb) as t(scope text, table_key text, path text, partition_by text[], columns jsonb)`,
    [lake, JSON.stringify(tables)],
  );
  await client.query(
    `insert into vwh.lake_scopes (lake, scope, run_id, writer)
     select $1, s.writer->>'scope', s.writer->>'run_id', s.writer from jsonb_to_recordset($2::jsonb) as s(writer jsonb)
     on conflict (lake, scope) do update set run_id = excluded.run_id, writer = excluded.writer, published_at = now()`,
    [lake, JSON.stringify(scopes.map((s) => ({ writer: s.writer })))],
  );
}
