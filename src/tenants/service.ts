// Tenants of an environment: listing, and deleting everything a tenant has.
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { deleteTenantJobs } from '../jobs/service.ts';
import { jobStorageFor } from '../jobs/storage.ts';
import { deleteTenantSchedules } from '../schedules/service.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import { revokeTenantTokens, type RevocationResult } from './revoke.ts';
import * as store from './store.ts';

export interface ListTenantsQuery {
  tenant?: string;
  page?: number;
  count?: number;
}

export async function listTenants(ctx: AppContext, scope: EnvScope, q: ListTenantsQuery) {
  const page = q.page ?? 1;
  const count = q.count ?? 50;
  const { rows, total } = await store.listTenants(ctx.db.kysely, scope, q.tenant, (page - 1) * count, count);
  const flows = await store.flowsByTenant(ctx.db.kysely, scope, rows.map((r) => r.tenant));
  return {
    tenants: rows.map((r) => ({ tenant_id: r.tenant, created_at: new Date(r.created_at).toISOString(), flows: flows.get(r.tenant) ?? [] })),
    page, count, total,
  };
}

export interface DeleteTenantOptions {
  revokeOauth: boolean;
  force: boolean;
}

export interface DeleteTenantOutcome {
  status: 'deleted' | 'not_found';
  env_id: string;
  tenant: string;
  removed: { tenant: boolean; links: number; schedules: number; jobs: number; queued_jobs: number; job_files: number };
  revoked_oauth?: RevocationResult[];
}

/**
 * Removes every row of the tenant in the environment (all flows) and its job files.
 * Running jobs are killed first. Idempotent: a second call removes nothing and says so.
 */
export async function deleteTenant(ctx: AppContext, scope: TenantScope, opts: DeleteTenantOptions): Promise<DeleteTenantOutcome> {
  if (scope.tenant === 'default' && !opts.force) {
    throw new BadRequestError('The "default" tenant holds the flows\' default links and schedules: pass force=true to delete it');
  }
  // Network calls first and outside any transaction; they need the credentials we are about to delete.
  const revoked = opts.revokeOauth ? await revokeTenantTokens(ctx, scope) : undefined;
  const queued = await store.countQueuedJobs(ctx.db.kysely, scope);
  const jobs = await deleteTenantJobs(ctx, scope, { kill: true });
  const removed = await ctx.db.kysely.transaction().execute(async (trx) => {
    const schedules = await deleteTenantSchedules(trx, scope);
    const rows = await store.deleteTenantLinks(trx, scope);
    const summary = { ...rows, schedules };
    if (rows.tenant || rows.links > 0 || schedules > 0 || jobs.jobs > 0) {
      await recordEvent(trx, ctx, scope, { type: 'tenant.deleted', orderingKey: `tenant:${scope.tenant}`, data: { tenant: scope.tenant } });
    }
    return summary;
  });
  // Files of jobs whose rows were already gone (e.g. a crash mid-deletion) live under the same prefix.
  const leftovers = await jobStorageFor(ctx, scope).deletePrefix(scope.tenant);
  const outcome: DeleteTenantOutcome = {
    status: removed.tenant || removed.links > 0 || jobs.jobs > 0 ? 'deleted' : 'not_found',
    env_id: scope.envId,
    tenant: scope.tenant,
    removed: { tenant: removed.tenant, links: removed.links, schedules: removed.schedules, jobs: jobs.jobs, queued_jobs: queued, job_files: jobs.files + leftovers },
  };
  if (revoked) outcome.revoked_oauth = revoked;
  return outcome;
}
