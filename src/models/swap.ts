import { quoteIdent } from '../core/sql.js';
import type { Session } from '../warehouse/session.js';
import { relationKind } from './relations.js';
import { qualified } from './sql-text.js';

/** The name a new version is built under before it replaces the live one. */
export function tempName(name: string): string {
  return `${name}__vwh_new`;
}

/**
 * Builds `select` into `schema.<name>__vwh_new`, then, in one transaction, drops the live relation and renames the
 * new one into place. A failing SELECT leaves the live version untouched (and no temporary table behind).
 * `beforeSwap` runs on the new table before it goes live (audits that block the swap).
 */
export async function buildAndSwapTable(
  exec: Session,
  schema: string,
  name: string,
  select: string,
  beforeSwap?: (tempRelation: string) => Promise<void>,
): Promise<number> {
  const temp = tempName(name);
  const tempRel = qualified(schema, temp);
  await exec.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await exec.run(`DROP TABLE IF EXISTS ${tempRel}`);
  try {
    await exec.run(`CREATE TABLE ${tempRel} AS ${select}`);
    if (beforeSwap) await beforeSwap(tempRel);
  } catch (error) {
    await exec.run(`DROP TABLE IF EXISTS ${tempRel}`).catch(() => {});
    throw error;
  }
  const rows = Number(await exec.scalar(`SELECT count(*) FROM ${tempRel}`));
  await exec.transaction(async () => {
    await dropRelation(exec, schema, name);
    await exec.run(`ALTER TABLE ${tempRel} RENAME TO ${quoteIdent(name)}`);
  });
  return rows;
}

/** Replaces whatever `schema.name` is with a view, in one transaction (a SELECT that does not bind changes nothing). */
export async function replaceWithView(exec: Session, schema: string, name: string, select: string): Promise<void> {
  await exec.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await exec.transaction(async () => {
    if ((await relationKind(exec, schema, name)) === 'table') await dropRelation(exec, schema, name);
    await exec.run(`CREATE OR REPLACE VIEW ${qualified(schema, name)} AS ${select}`);
  });
}

export async function dropRelation(exec: Session, schema: string, name: string): Promise<void> {
  const kind = await relationKind(exec, schema, name);
  if (kind === 'table') await exec.run(`DROP TABLE ${qualified(schema, name)}`);
  if (kind === 'view') await exec.run(`DROP VIEW ${qualified(schema, name)}`);
}
