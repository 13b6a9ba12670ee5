// The schema for everything the API description names. Later migrations alter it;
// this file never changes once released.
import type { Kysely } from 'kysely';

import type { DialectName } from '../connect.ts';

type Db = Kysely<any>;


async function environmentsAndKeys(db: Db): Promise<void> {
  await db.schema.createTable('system_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createTable('environments')
    .addColumn('env_id', 'text', (c) => c.primaryKey())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('webhook_secrets_enc', 'text')
    .addColumn('signing_public_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('role', 'text')
    .addColumn('user_name', 'text')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_env').on('api_keys').column('env_id').execute();
}

async function catalogAndLinks(db: Db): Promise<void> {
  await db.schema.createTable('catalog_entries')
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('secrets_enc', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('catalog_entries_pk', ['env_id', 'kind', 'name'])
    .execute();
  await db.schema.createTable('flows')
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('spec', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('flows_pk', ['env_id', 'flow_id'])
    .execute();
  await db.schema.createTable('tenants')
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenants_pk', ['env_id', 'tenant'])
    .execute();
  await db.schema.createTable('links')
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('config_enc', 'text')
    .addColumn('field_map', 'text')
    .addColumn('catalog', 'text')
    .addColumn('state', 'text')
    .addColumn('symlink', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('links_pk', ['env_id', 'flow_id', 'tenant', 'kind', 'name'])
    .execute();
  await db.schema.createIndex('links_tenant').on('links').columns(['env_id', 'tenant']).execute();
}

async function jobs(db: Db, dialect: DialectName): Promise<void> {
  await db.schema.createTable('jobs')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('flow_version', 'integer', (c) => c.notNull())
    .addColumn('tap', 'text', (c) => c.notNull())
    .addColumn('connector_id', 'text')
    .addColumn('job_type', 'text')
    .addColumn('job_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('started_by', 'text', (c) => c.notNull())
    .addColumn('scheduled_job', 'integer', (c) => c.notNull())
    .addColumn('schedule_id', 'text')
    .addColumn('s3_root', 'text', (c) => c.notNull().unique())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('last_updated', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('processed_rows', 'integer', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('request_enc', 'text', (c) => c.notNull())
    .addColumn('export_details', 'text')
    .addColumn('sync_type', 'text', (c) => c.notNull())
    .addColumn('worker_id', 'text')
    .addColumn('heartbeat_at', 'bigint')
    .addColumn('idempotency_key', 'text')
    .addColumn('queued_job_id', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_tenant_time').on('jobs')
    .columns(['env_id', 'flow_id', 'tenant', 'start_time']).execute();
  await db.schema.createIndex('jobs_status').on('jobs').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('jobs_idempotency').on('jobs').unique()
    .columns(['env_id', 'tenant', 'idempotency_key']).execute();
  await db.schema.createTable('queued_jobs')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('job_type', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_name', 'text')
    .addColumn('request_enc', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('schedule_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('queued_jobs_lane').on('queued_jobs')
    .columns(['env_id', 'tenant_id', 'flow_id', 'connector', 'status', 'id']).execute();
}

async function schedulesAndWebhooks(db: Db, dialect: DialectName): Promise<void> {
  await db.schema.createTable('schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('connector_id', 'text', (c) => c.notNull())
    .addColumn('job_type', 'text', (c) => c.notNull())
    .addColumn('expression', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('jitter_minutes', 'integer')
    .addColumn('overlap', 'text', (c) => c.notNull())
    .addColumn('overrides_enc', 'text')
    .addColumn('next_run_at', 'bigint')
    .addColumn('last_run_at', 'bigint')
    .addColumn('last_job_id', 'text')
    .addColumn('skipped_runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('schedules_identity', ['env_id', 'flow_id', 'tenant', 'connector_id', 'job_type'])
    .execute();
  await db.schema.createIndex('schedules_due').on('schedules').columns(['state', 'next_run_at']).execute();
  await db.schema.createTable('webhook_events')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.env_id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('ordering_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secrets_enc', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_events_due').on('webhook_events')
    .columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_events_env').on('webhook_events').columns(['env_id', 'id']).execute();
}

export function initialMigration(dialect: DialectName) {
  return {
    async up(db: Db): Promise<void> {
      await environmentsAndKeys(db);
      await catalogAndLinks(db);
      await jobs(db, dialect);
      await schedulesAndWebhooks(db, dialect);
    },
    async down(db: Db): Promise<void> {
      for (const t of ['webhook_events', 'schedules', 'queued_jobs', 'jobs', 'links', 'tenants', 'flows',
        'catalog_entries', 'api_keys', 'environments', 'system_settings']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  };
}
