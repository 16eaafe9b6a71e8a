import { quoteIdent } from '../core/sql.js';
import type { Session } from '../warehouse/session.js';
import type { Relations } from './relations.js';
import { qualified } from './sql-text.js';

/** The name a new version is built under before it replaces the live one. */
export function tempName(name: string): string {
  return `${name}__vwh_new`;
}

/**
 * Builds `select` into `schema.<name>__vwh_new`, then, in one transaction, drops the live relation and renames the
 * new one into place. A failing SELECT leaves the live version untouched (and no temporary table behind).
 * `beforeSwap` runs on the new table before it goes live (audits that block the swap). The schema exists (the
 * runner creates the schemas of a build up front).
 */
export async function buildAndSwapTable(
  exec: Session,
  relations: Relations,
  schema: string,
  name: string,
  select: string,
  beforeSwap?: (tempRelation: string) => Promise<void>,
  /** Runs inside the swap's transaction (the model's state, which commits with it). */
  inSwap?: () => Promise<void>,
): Promise<number> {
  const temp = tempName(name);
  const tempRel = qualified(schema, temp);
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
    await dropRelation(exec, relations, schema, name);
    await exec.run(`ALTER TABLE ${tempRel} RENAME TO ${quoteIdent(name)}`);
    await inSwap?.();
  });
  relations.set(schema, name, 'table');
  return rows;
}

/** Replaces whatever `schema.name` is with a view, in one transaction (a SELECT that does not bind changes nothing). */
export async function replaceWithView(
  exec: Session,
  relations: Relations,
  schema: string,
  name: string,
  select: string,
  /** Runs inside the transaction (the model's state, which commits with the view). */
  inSwap?: () => Promise<void>,
): Promise<void> {
  await exec.transaction(async () => {
    if (relations.kind(schema, name) === 'table') await dropRelation(exec, relations, schema, name);
    await exec.run(`CREATE OR REPLACE VIEW ${qualified(schema, name)} AS ${select}`);
    await inSwap?.();
  });
  relations.set(schema, name, 'view');
}

/** Drops `schema.name`, whatever it is; the caller records the change in `relations` once it committed. */
export async function dropRelation(exec: Session, relations: Relations, schema: string, name: string): Promise<void> {
  const kind = relations.kind(schema, name);
  if (kind === 'table') await exec.run(`DROP TABLE ${qualified(schema, name)}`);
  if (kind === 'view') await exec.run(`DROP VIEW ${qualified(schema, name)}`);
}
