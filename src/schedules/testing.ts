// Test support for the schedules suites: a controllable clock, fixture rows for the
// tables other domains own (flows, links), and a recording dispatch.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { createContext } from '../bootstrap.ts';
import type { AppContext } from '../context.ts';
import { insertEnvironment } from '../environments/store.ts';
import type { Dispatch, ScheduledOrigin } from './fire.ts';
import type { RunJobRequest } from '../jobs/request.ts';

export interface FakeClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(start: number): FakeClock {
  let current = start;
  return {
    now: () => current,
    set(ms) { current = ms; },
    advance(ms) { current += ms; },
  };
}

export async function insertFlow(ctx: AppContext, envId: string, flowId: string): Promise<void> {
  await ctx.db.kysely.insertInto('flows')
    .values({ env_id: envId, flow_id: flowId, spec: '{}', created_at: ctx.now(), updated_at: ctx.now() }).execute();
}

export async function insertLink(ctx: AppContext, envId: string, flowId: string, tenant: string, name: string): Promise<void> {
  await ctx.db.kysely.insertInto('links').values({
    env_id: envId, flow_id: flowId, tenant, kind: 'source', name, config_enc: null, field_map: null, catalog: null,
    state: null, symlink: null, created_at: ctx.now(), updated_at: ctx.now(),
  }).execute();
}

export interface RecordedRun {
  envId: string;
  tenant: string;
  flowId: string;
  request: RunJobRequest;
  origin: ScheduledOrigin;
  firedAt: number;
}

/** A dispatch that records each run and answers like createJob did start a job. */
export function recordingDispatch(clock: () => number): { dispatch: Dispatch; runs: RecordedRun[] } {
  const runs: RecordedRun[] = [];
  let counter = 0;
  const dispatch: Dispatch = async (_ctx, scope, flowId, request, origin) => {
    runs.push({ envId: scope.envId, tenant: scope.tenant, flowId, request, origin, firedAt: clock() });
    counter += 1;
    return { kind: 'job', job: { job_id: `job_${counter}` } };
  };
  return { dispatch, runs };
}

/**
 * A context on storage of its own (a temporary SQLite file, or a fresh PostgreSQL schema
 * on the base context's server), so a scheduler under test sees only its own schedules.
 * Pass `share` to open another context on the same storage (a second "process").
 */
export async function isolatedContext(
  base: AppContext, now: () => number, share?: IsolatedContext,
): Promise<IsolatedContext> {
  const postgres = base.db.dialect === 'postgres';
  const schema = share?.schema ?? (postgres ? `sched_${crypto.randomBytes(6).toString('hex')}` : null);
  const dataDir = share?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-sched-'));
  if (schema !== null && !share) await createPgSchema(base, schema);
  const config = { ...base.config, dataDir };
  let ctx: AppContext;
  try {
    ctx = await createContext(config, { logger: pino({ level: 'silent' }), now, pgSchema: schema ?? undefined });
  } catch (error) {
    if (schema !== null && !share) await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(base.db.kysely);
    throw error;
  }
  return {
    ctx, schema, dataDir,
    async close() {
      await ctx.db.close();
      if (share) return;
      if (schema !== null) await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(base.db.kysely);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface IsolatedContext {
  ctx: AppContext;
  schema: string | null;
  dataDir: string;
  close(): Promise<void>;
}

/** An environment and a flow to hang schedules on (system scope, no HTTP). */
export async function seedEnvAndFlow(ctx: AppContext, envId: string, flowId: string): Promise<void> {
  await insertEnvironment(ctx.db.kysely, envId, ctx.now());
  await insertFlow(ctx, envId, flowId);
}

/**
 * Kysely's Migrator looks for its bookkeeping tables in every schema when no
 * migrationTableSchema is given, finds another run's and skips creating its own; so
 * the new schema gets them up front.
 */
async function createPgSchema(base: AppContext, schema: string): Promise<void> {
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(base.db.kysely);
  await sql`CREATE TABLE ${sql.id(schema, 'kysely_migration')} (name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(base.db.kysely);
  await sql`CREATE TABLE ${sql.id(schema, 'kysely_migration_lock')} (id varchar(255) PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)`.execute(base.db.kysely);
}
