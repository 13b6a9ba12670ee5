// The default-tenant cascade: a schedule on the flow's `default` tenant is copied to
// each tenant that links a source/connector afterwards and has no schedule of its own.
// Copies are marked inherited, always ENABLED (a DISABLED default only stops the
// default tenant's own runs), and keep the default's jitter window, so each tenant
// runs in its own stable slot. Tenants linked earlier change only on apply_to_existing.
import { tenantScopeOf, type TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { resolveSchedule, saveSchedule } from './records.ts';
import * as store from './store.ts';
import type { JobType, ScheduleRow } from './store.ts';
import { DEFAULT_TENANT, nextRunMs } from './validate.ts';

/** Writes (or refreshes) the tenant's inherited copy; never touches a schedule of its own. */
async function copyToTenant(ctx: AppContext, scope: TenantScope, template: ScheduleRow, connectorId: string): Promise<boolean> {
  const jobType = template.job_type as JobType;
  const existing = await resolveSchedule(ctx, scope, template.flow_id, { connectorId, jobType });
  if (existing && existing.inherited !== 1) return false;
  const timing = { expression: template.expression, timezone: template.timezone, jitter_minutes: template.jitter_minutes };
  await saveSchedule(ctx, scope, { flowId: template.flow_id, connectorId: existing?.connector_id ?? connectorId, jobType }, existing, {
    ...timing,
    state: 'ENABLED',
    overlap: template.overlap,
    overrides_enc: template.overrides_enc,
    next_run_at: nextRunMs(timing, scope.tenant, ctx.now()),
    inherited: 1,
  });
  return true;
}

/** Which of a tenant's linked names a default schedule applies to. */
function namesFor(template: ScheduleRow, linked: string[]): string[] {
  if (template.connector_id === '') return linked;
  return linked.includes(template.connector_id) ? [template.connector_id] : [];
}

/**
 * Called by the links service when `scope.tenant` links `connectorId` in `flowId`.
 * Returns how many schedules were copied.
 */
export async function applyDefaultScheduleToTenant(
  ctx: AppContext, scope: TenantScope, flowId: string, connectorId: string,
): Promise<number> {
  if (scope.tenant === DEFAULT_TENANT) return 0;
  const templates = await store.listTenantFlowSchedules(ctx.db.kysely, tenantScopeOf(scope, DEFAULT_TENANT), flowId);
  let copied = 0;
  for (const template of templates) {
    for (const name of namesFor(template, [connectorId])) {
      if (await copyToTenant(ctx, scope, template, name)) copied += 1;
    }
  }
  return copied;
}

/** PUT on `default` with apply_to_existing=true: copies to every linked tenant without its own schedule. */
export async function copyDefaultToExistingTenants(ctx: AppContext, defaultScope: TenantScope, template: ScheduleRow): Promise<number> {
  const tenants = await store.linkedTenants(ctx.db.kysely, defaultScope, template.flow_id);
  let applied = 0;
  for (const [tenant, linked] of tenants) {
    let copiedAny = false;
    for (const name of namesFor(template, linked)) {
      if (await copyToTenant(ctx, tenantScopeOf(defaultScope, tenant), template, name)) copiedAny = true;
    }
    if (copiedAny) applied += 1;
  }
  return applied;
}
