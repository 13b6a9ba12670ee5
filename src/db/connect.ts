// Opens the one database Tapline uses: an embedded SQLite file or PostgreSQL.
// Everything above this file talks Kysely and never knows which one it is.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { allMigrations } from './migrations/index.ts';
import type { Database } from './types.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /** PostgreSQL schema in use (search_path), when not the default. */
  readonly pgSchema?: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; when absent, `sqliteFile` is used. */
  databaseUrl?: string;
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests give each run its own). */
  pgSchema?: string;
  poolSize?: number;
}

// pg returns int8 as string by default; our int8 columns are epoch millis and counters.
pg.types.setTypeParser(20, (value: string) => Number(value));

function openPostgres(opts: OpenOptions): Db {
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: opts.poolSize ?? 10,
    options: opts.pgSchema ? `-c search_path=${opts.pgSchema}` : undefined,
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', pgSchema: opts.pgSchema, close: () => kysely.destroy() };
}

/**
 * Kysely prepares a statement per query; better-sqlite3 frees one only on a full GC,
 * so long-running loops (scheduler, workers) grew by hundreds of MB. Reuse prepared
 * statements by SQL text (bounded); a statement busy in an iterator is not shared.
 */
function cacheStatements(database: SQLite.Database, max = 2000): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SQLite.Statement>();
  database.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) return cached;
    const statement = prepare(source);
    if (!cached) {
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}

function openSqlite(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  cacheStatements(database);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
}

export function openDatabase(opts: OpenOptions): Db {
  if (opts.databaseUrl) return openPostgres(opts);
  if (!opts.sqliteFile) throw new Error('openDatabase: either databaseUrl or sqliteFile is required');
  return openSqlite(opts.sqliteFile);
}

function migratorFor(db: Db): Migrator {
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => allMigrations(db.dialect) },
    // Domains number their migrations in blocks (010 links, 020 jobs, …), so a newer
    // block may sort before an applied one.
    allowUnorderedMigrations: true,
    // Kysely looks its own tables up across schemas unless told which one is ours.
    ...(db.pgSchema ? { migrationTableSchema: db.pgSchema } : {}),
  });
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = migratorFor(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (readiness). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const migrator = migratorFor(db);
  const migrations = await migrator.getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
