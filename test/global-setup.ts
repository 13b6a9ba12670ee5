// Runs once per `vitest run`: gives this run its own PostgreSQL schema (migrated
// once), so runs never see each other's rows or an older schema.
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../src/db/connect.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgSchema: string | null;
  }
}

let schema: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('PostgreSQL tests skipped: TEST_DATABASE_URL is not set');
    project.provide('pgSchema', null);
    return;
  }
  schema = `tapline_test_${Date.now()}_${process.pid}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const db = openDatabase({ databaseUrl: url, pgSchema: schema });
  await migrateToLatest(db);
  await db.close();
  project.provide('pgSchema', schema);
}

export async function teardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url || !schema) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
