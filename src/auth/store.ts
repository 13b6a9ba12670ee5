// API key rows. Lookup by hash is the one query without a scope: it is how a
// scope is found in the first place.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import type { EnvScope, KeyType, Role } from './scope.ts';

export interface ApiKeyRecord {
  id: string;
  env_id: string;
  type: KeyType;
  role: Role | null;
  user: string | null;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

type Row = Database['api_keys'];

function toRecord(row: Row): ApiKeyRecord {
  return {
    id: row.id,
    env_id: row.env_id,
    type: row.type as KeyType,
    role: row.role as Role | null,
    user: row.user_name,
    prefix: row.prefix,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}

export interface InsertKey {
  id: string;
  type: KeyType;
  role: Role | null;
  user: string | null;
  prefix: string;
  hash: string;
  now: number;
}

export async function insertApiKey(db: Kysely<Database>, scope: EnvScope, key: InsertKey): Promise<ApiKeyRecord> {
  const row: Row = {
    id: key.id, env_id: scope.envId, type: key.type, role: key.role, user_name: key.user,
    prefix: key.prefix, key_hash: key.hash, created_at: key.now, revoked_at: null, last_used_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return toRecord(row);
}

export async function listApiKeys(db: Kysely<Database>, scope: EnvScope): Promise<ApiKeyRecord[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('env_id', '=', scope.envId)
    .orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

export async function revokeApiKey(db: Kysely<Database>, scope: EnvScope, id: string, now: number): Promise<ApiKeyRecord | null> {
  await db.updateTable('api_keys').set({ revoked_at: now })
    .where('env_id', '=', scope.envId).where('id', '=', id).where('revoked_at', 'is', null).execute();
  const row = await db.selectFrom('api_keys').selectAll()
    .where('env_id', '=', scope.envId).where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findActiveKeyByHash(db: Kysely<Database>, hash: string): Promise<ApiKeyRecord | null> {
  const row = await db.selectFrom('api_keys').selectAll()
    .where('key_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
  return row ? toRecord(row) : null;
}
