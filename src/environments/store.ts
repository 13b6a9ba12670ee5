// Environment rows. Scoped by EnvScope like every store; creation and listing are
// the operator's and take no scope.
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { Database } from '../db/types.ts';

export interface EnvironmentSettings {
  require_tenant_jwt: boolean;
  preferences: Record<string, unknown>;
  webhook_url: string | null;
  /** Event types sent to webhook_url; null sends every event. */
  webhook_events: string[] | null;
  cors_origins: string[];
}

export interface WebhookSecret {
  secret: string;
  /** Epoch ms after which an older secret stops being used; null for the current one. */
  until: number | null;
}

export interface EnvironmentRow {
  env_id: string;
  settings: EnvironmentSettings;
  webhook_secrets_enc: string | null;
  signing_public_key: string | null;
  created_at: number;
  updated_at: number;
}

export const DEFAULT_SETTINGS: EnvironmentSettings = {
  require_tenant_jwt: false,
  preferences: {},
  webhook_url: null,
  webhook_events: null,
  cors_origins: [],
};

function fromRow(row: Database['environments']): EnvironmentRow {
  return { ...row, settings: { ...DEFAULT_SETTINGS, ...JSON.parse(row.settings) } };
}

export async function insertEnvironment(db: Kysely<Database>, envId: string, now: number): Promise<void> {
  await db.insertInto('environments').values({
    env_id: envId, settings: JSON.stringify(DEFAULT_SETTINGS), webhook_secrets_enc: null,
    signing_public_key: null, created_at: now, updated_at: now,
  }).execute();
}

export async function environmentExists(db: Kysely<Database>, envId: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('env_id').where('env_id', '=', envId).executeTakeFirst();
  return row !== undefined;
}

export async function listEnvironmentIds(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('environments').select('env_id').orderBy('env_id').execute();
  return rows.map((r) => r.env_id);
}

export async function getEnvironment(db: Kysely<Database>, scope: EnvScope): Promise<EnvironmentRow | null> {
  const row = await db.selectFrom('environments').selectAll().where('env_id', '=', scope.envId).executeTakeFirst();
  return row ? fromRow(row) : null;
}

export interface EnvironmentPatch {
  settings?: EnvironmentSettings;
  webhook_secrets_enc?: string | null;
  signing_public_key?: string | null;
}

export async function updateEnvironment(db: Kysely<Database>, scope: EnvScope, patch: EnvironmentPatch, now: number): Promise<void> {
  await db.updateTable('environments').set({
    ...(patch.settings ? { settings: JSON.stringify(patch.settings) } : {}),
    ...(patch.webhook_secrets_enc !== undefined ? { webhook_secrets_enc: patch.webhook_secrets_enc } : {}),
    ...(patch.signing_public_key !== undefined ? { signing_public_key: patch.signing_public_key } : {}),
    updated_at: now,
  }).where('env_id', '=', scope.envId).execute();
}

/** Removes the environment; foreign keys cascade to every row that belongs to it. */
export async function deleteEnvironment(db: Kysely<Database>, scope: EnvScope): Promise<boolean> {
  const result = await db.deleteFrom('environments').where('env_id', '=', scope.envId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
