// Rows of `links` and `tenants`. Every function takes a TenantScope (or EnvScope
// for environment-wide reads) and filters by it: no query crosses tenants.
import type { Kysely } from 'kysely';
import type { TenantScope } from '../auth/scope.ts';
import type { Database, LinksTable } from '../db/types.ts';
import type { FieldMap } from './field-map.ts';
import type { DiscoverStatus, DiscoveryState, LinkKey, LinkKind, LinkRow, StoredCatalog, SymlinkRef } from './types.ts';

type Db = Kysely<Database>;

function parse<T>(text: string | null): T | null {
  return text === null ? null : JSON.parse(text) as T;
}

function ms(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function discoveryOf(row: LinksTable): DiscoveryState | null {
  if (!row.discover_status) return null;
  return {
    status: row.discover_status as DiscoverStatus, message: row.discover_message ?? null, token: row.discover_token ?? null,
    startedAt: ms(row.discover_started_at) ?? 0, finishedAt: ms(row.discover_finished_at), heartbeatAt: ms(row.discover_heartbeat_at),
  };
}

function fromRow(row: LinksTable): LinkRow {
  return {
    flowId: row.flow_id, tenant: row.tenant, kind: row.kind as LinkKind, name: row.name,
    configEnc: row.config_enc, fieldMap: parse<FieldMap>(row.field_map), catalog: parse<StoredCatalog>(row.catalog),
    state: parse<unknown>(row.state), symlink: parse<SymlinkRef>(row.symlink),
    isReconnecting: Number(row.is_reconnecting ?? 0) === 1, discovery: discoveryOf(row),
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

function scoped(db: Db, scope: TenantScope) {
  return db.selectFrom('links').selectAll().where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant);
}

export async function getLink(db: Db, scope: TenantScope, flowId: string, key: LinkKey): Promise<LinkRow | null> {
  const row = await scoped(db, scope).where('flow_id', '=', flowId).where('kind', '=', key.kind).where('name', '=', key.name).executeTakeFirst();
  return row ? fromRow(row) : null;
}

/** The tenant's links in one flow (optionally of one kind), by name. */
export async function listLinks(db: Db, scope: TenantScope, flowId: string, kind?: LinkKind): Promise<LinkRow[]> {
  let query = scoped(db, scope).where('flow_id', '=', flowId);
  if (kind) query = query.where('kind', '=', kind);
  return (await query.orderBy('kind').orderBy('name').execute()).map(fromRow);
}

/** Every link of the tenant in the environment (all flows). */
export async function listTenantLinks(db: Db, scope: TenantScope): Promise<LinkRow[]> {
  return (await scoped(db, scope).orderBy('flow_id').orderBy('kind').orderBy('name').execute()).map(fromRow);
}

export interface LinkWrite {
  configEnc: string | null;
  fieldMap: FieldMap | null;
  state: unknown;
  symlink: SymlinkRef | null;
  /** Undefined keeps the stored catalog. */
  catalog?: StoredCatalog | null;
}

/** Inserts or replaces a link (clearing isReconnecting); returns whether it existed before. */
export async function upsertLink(db: Db, scope: TenantScope, flowId: string, key: LinkKey, write: LinkWrite, now: number): Promise<boolean> {
  const values = {
    is_reconnecting: 0,
    config_enc: write.configEnc,
    field_map: write.fieldMap === null ? null : JSON.stringify(write.fieldMap),
    state: write.state === null || write.state === undefined ? null : JSON.stringify(write.state),
    symlink: write.symlink === null ? null : JSON.stringify(write.symlink),
    ...(write.catalog !== undefined ? { catalog: write.catalog === null ? null : JSON.stringify(write.catalog) } : {}),
    updated_at: now,
  };
  const updated = await db.updateTable('links').set(values)
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', '=', key.kind).where('name', '=', key.name).executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return true;
  await db.insertInto('links').values({
    env_id: scope.envId, flow_id: flowId, tenant: scope.tenant, kind: key.kind, name: key.name,
    catalog: null, ...values, created_at: now,
  }).execute();
  return false;
}

export interface LinkPatch {
  configEnc?: string | null;
  fieldMap?: FieldMap | null;
  catalog?: StoredCatalog | null;
  state?: unknown;
  isReconnecting?: boolean;
}

/** Updates some columns of one link; returns whether the link exists. */
export async function patchLink(db: Db, scope: TenantScope, flowId: string, key: LinkKey, patch: LinkPatch, now: number): Promise<boolean> {
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  const result = await db.updateTable('links').set({
    ...(patch.configEnc !== undefined ? { config_enc: patch.configEnc } : {}),
    ...(patch.fieldMap !== undefined ? { field_map: json(patch.fieldMap) } : {}),
    ...(patch.catalog !== undefined ? { catalog: json(patch.catalog) } : {}),
    ...(patch.state !== undefined ? { state: json(patch.state) } : {}),
    ...(patch.isReconnecting !== undefined ? { is_reconnecting: patch.isReconnecting ? 1 : 0 } : {}),
    updated_at: now,
  }).where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', '=', key.kind).where('name', '=', key.name).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteLink(db: Db, scope: TenantScope, flowId: string, key: LinkKey): Promise<boolean> {
  const result = await db.deleteFrom('links')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', '=', key.kind).where('name', '=', key.name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Clears the stored state of the tenant's links of `kind` in the flow (one name, or all); returns how many had one. */
export async function clearStates(db: Db, scope: TenantScope, flowId: string, kind: LinkKind, name?: string): Promise<number> {
  let query = db.updateTable('links').set({ state: null })
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', '=', kind).where('state', 'is not', null);
  if (name !== undefined) query = query.where('name', '=', name);
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

export async function ensureTenant(db: Db, scope: TenantScope, now: number): Promise<void> {
  const row = await db.selectFrom('tenants').select('tenant')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  if (row) return;
  await db.insertInto('tenants').values({ env_id: scope.envId, tenant: scope.tenant, created_at: now })
    .onConflict((oc) => oc.columns(['env_id', 'tenant']).doNothing()).execute();
}

/** Flow ids where the tenant has at least one link. */
export async function linkedFlowIds(db: Db, scope: TenantScope): Promise<string[]> {
  const rows = await db.selectFrom('links').select('flow_id').distinct()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).orderBy('flow_id').execute();
  return rows.map((r) => r.flow_id);
}
