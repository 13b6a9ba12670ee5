// Tenant rows of an environment: listing (env-wide by nature, EnvScope) and the
// per-tenant deletions this domain owns (TenantScope).
import { sql, type Kysely } from 'kysely';
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import type { Database } from '../db/types.ts';

type Db = Kysely<Database>;

export interface TenantRow {
  tenant: string;
  created_at: number;
}

/** Tenants whose id starts with `prefix` (exact id and its subtenants), by id. */
export async function listTenants(db: Db, scope: EnvScope, prefix: string | undefined, offset: number, limit: number): Promise<{ rows: TenantRow[]; total: number }> {
  let base = db.selectFrom('tenants').where('env_id', '=', scope.envId);
  // substr instead of LIKE: no wildcard escaping, and case-sensitive on both stores.
  if (prefix) base = base.where(sql<string>`substr(tenant, 1, ${prefix.length})`, '=', prefix);
  const rows = await base.select(['tenant', 'created_at']).orderBy('tenant').offset(offset).limit(limit).execute();
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return { rows, total: Number(count?.n ?? 0) };
}

/** Flow ids with links, for each of `tenants`. */
export async function flowsByTenant(db: Db, scope: EnvScope, tenants: string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(tenants.map((t) => [t, []]));
  if (tenants.length === 0) return result;
  const rows = await db.selectFrom('links').select(['tenant', 'flow_id']).distinct()
    .where('env_id', '=', scope.envId).where('tenant', 'in', tenants).orderBy('tenant').orderBy('flow_id').execute();
  for (const row of rows) result.get(row.tenant)?.push(row.flow_id);
  return result;
}

export async function tenantExists(db: Db, scope: TenantScope): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('tenant').where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  return row !== undefined;
}

export async function countQueuedJobs(db: Db, scope: TenantScope): Promise<number> {
  const row = await db.selectFrom('queued_jobs').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Removes the tenant's links (config, field maps, catalogs, state) and its tenant row. */
export async function deleteTenantLinks(db: Db, scope: TenantScope): Promise<{ links: number; tenant: boolean }> {
  const links = await db.deleteFrom('links').where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  const tenant = await db.deleteFrom('tenants').where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  return { links: Number(links.numDeletedRows), tenant: Number(tenant.numDeletedRows) > 0 };
}
