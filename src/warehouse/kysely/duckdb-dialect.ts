import {
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresQueryCompiler,
  type QueryCompiler,
} from 'kysely';
import type { Session } from '../session.js';
import { DuckDBDriver } from './duckdb-driver.js';
import { DuckDBIntrospector } from './duckdb-introspector.js';

/**
 * Kysely for DuckDB through @duckdb/node-api. DuckDB speaks Postgres-flavoured SQL and binds `$1` parameters,
 * so the Postgres query compiler and adapter fit; the driver and introspector are DuckDB's own.
 */
export class DuckDBDialect implements Dialect {
  constructor(private readonly session: Session) {}

  createDriver(): Driver {
    return new DuckDBDriver(this.session);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: the introspector works on any database shape
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new DuckDBIntrospector(db);
  }
}
