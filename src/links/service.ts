// Linking a source, target or connector to a tenant, and listing a tenant's links.
import { tenantScopeOf, type TenantScope } from '../auth/scope.ts';
import { listEntries } from '../catalog/store.ts';
import type { FlowSpec } from '../catalog/types.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError, ForbiddenError } from '../errors.ts';
import { applyDefaultScheduleToTenant, assertValidLinkSchedule, upsertScheduleFromLink, type LinkSchedule } from '../schedules/service.ts';
import { badInput, flowFor, KIND_NOUN, linkEvent, NAME_PARAM, offeredEntry, offeredNames } from './common.ts';
import { discoverAfterLink, effectiveDiscovery } from './discovery.ts';
import { liveConfig } from './resolve.ts';
import { keepMaskedSecrets, passwordParams } from './secrets.ts';
import { ensureTenant, getLink, listLinks, upsertLink } from './store.ts';
import type { LinkKind, LinkRow, SymlinkRef } from './types.ts';
import { identityChanged, missingParams, parseLinkBody, sameTenantFamily, type LinkRequest, type SymlinkRequest } from './validate.ts';
import { linkView, type ViewOptions } from './views.ts';

export { requireLink } from './common.ts';

export interface ListOptions extends ViewOptions {
  name?: string;
}

export async function listLinked(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, opts: ListOptions) {
  await flowFor(ctx, scope, flowId, kind);
  const entries = new Map((await listEntries(ctx.db.kysely, scope, kind)).map((s) => [s.entry.name, s.entry]));
  const links = (await listLinks(ctx.db.kysely, scope, flowId, kind)).filter((l) => opts.name === undefined || l.name === opts.name);
  const views = [];
  for (const link of links) {
    const discovery = effectiveDiscovery(link.discovery, ctx.now(), ctx.config.workerLostAfterMs);
    views.push(linkView({ ...link, discovery }, entries.get(link.name), await liveConfig(ctx.db.kysely, ctx.secrets, scope, link), opts));
  }
  return views;
}

/** A v2 body may omit connector.id when the flow offers exactly one connector. */
function nameOf(flow: FlowSpec, kind: LinkKind, request: LinkRequest): string {
  if (request.name !== undefined) return request.name;
  const offered = offeredNames(flow, kind);
  if (offered.length === 1) return offered[0] as string;
  throw new BadRequestError(`"connector.id" is required: flow "${flow.id}" offers ${offered.length} connectors`);
}

/** Checks the original of a symlink and returns the reference to store. */
async function resolveSymlinkRequest(ctx: AppContext, scope: TenantScope, kind: LinkKind, name: string, flowId: string, req: SymlinkRequest): Promise<SymlinkRef> {
  const tenant = req.tenant ?? scope.tenant;
  const ref: SymlinkRef = { flow_id: req.flowId, tenant, name: req.entity ?? name, ...(req.kind && req.kind !== kind ? { kind: req.kind } : {}) };
  if (ref.flow_id === flowId && tenant === scope.tenant && ref.name === name && (ref.kind ?? kind) === kind) {
    throw new BadRequestError('A link cannot be a symlink to itself');
  }
  if (tenant !== scope.tenant && scope.principal.type === 'public' && !sameTenantFamily(tenant, scope.tenant)) {
    throw new ForbiddenError(`A public key may only share credentials within a tenant and its subtenants, not from tenant "${tenant}"`);
  }
  const original = await getLink(ctx.db.kysely, tenantScopeOf(scope, tenant), ref.flow_id, { kind: ref.kind ?? kind, name: ref.name });
  if (!original) {
    throw new BadRequestError(`Cannot share credentials: tenant "${tenant}" has no linked ${KIND_NOUN[ref.kind ?? kind]} "${ref.name}" in flow "${ref.flow_id}"`);
  }
  if (original.symlink) throw new BadRequestError(`Cannot share credentials of "${ref.name}" in flow "${ref.flow_id}": it is itself a symlink`);
  return ref;
}

export interface LinkOutcome {
  status: 'linked';
  flow_id: string;
  tenant: string;
  [name: string]: unknown;
}

/** Creates the link, or replaces the config of an existing one (see docs/api.md for what is kept). */
export async function linkItem(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, body: unknown, schedule: LinkSchedule | undefined): Promise<LinkOutcome> {
  const flow = await flowFor(ctx, scope, flowId, kind);
  const request = badInput(() => parseLinkBody(kind, body));
  if (schedule !== undefined && kind === 'target') throw new BadRequestError('Schedules belong to sources: a linked target takes no "schedule"');
  assertValidLinkSchedule(schedule);
  const name = nameOf(flow, kind, request);
  const entry = await offeredEntry(ctx, scope, flow, kind, name);
  const existing = await getLink(ctx.db.kysely, scope, flowId, { kind, name });
  const before = existing ? await liveConfig(ctx.db.kysely, ctx.secrets, scope, existing) : null;
  const symlink = request.symlink ? await resolveSymlinkRequest(ctx, scope, kind, name, flowId, request.symlink) : null;
  const config = symlink ? {} : keepMaskedSecrets(request.config ?? {}, before?.config ?? {}, passwordParams(entry.connect_ui_params));
  const after = symlink ? (await liveConfig(ctx.db.kysely, ctx.secrets, scope, { ...(existing ?? blankLink(scope, flowId, kind, name)), symlink })).config : config;
  if (!symlink) {
    const missing = missingParams(entry, config);
    if (missing.length > 0) throw new BadRequestError(`Missing required config for "${name}": ${missing.join(', ')}`, { missing });
  }
  const keepState = existing !== null && !identityChanged(entry, before?.config ?? {}, after);
  const fieldMap = request.fieldMap !== undefined ? request.fieldMap : existing ? existing.fieldMap : entry.fieldMap;
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await ensureTenant(trx, scope, ctx.now());
    await upsertLink(trx, scope, flowId, { kind, name }, {
      configEnc: symlink ? null : ctx.secrets.sealJson(config), fieldMap, symlink, state: keepState ? existing?.state ?? null : null,
    }, ctx.now());
    await linkEvent(trx, ctx, scope, existing ? 'connection.updated' : 'connection.linked', flowId, kind, name);
  });
  const scheduled = kind === 'target' ? null : await linkSchedule(ctx, scope, flowId, kind, name, schedule);
  await discoverAfterLink(ctx, scope, flowId, kind, name);
  return {
    status: 'linked', [NAME_PARAM[kind]]: name, flow_id: flowId, tenant: scope.tenant,
    replaced: existing !== null, state_kept: keepState, symlinked: symlink !== null,
    ...(scheduled ? { schedule: scheduled } : {}),
  };
}

function blankLink(scope: TenantScope, flowId: string, kind: LinkKind, name: string): LinkRow {
  return {
    flowId, tenant: scope.tenant, kind, name, configEnc: null, fieldMap: null, catalog: null, state: null, symlink: null,
    isReconnecting: false, discovery: null, createdAt: 0, updatedAt: 0,
  };
}

async function linkSchedule(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, name: string, schedule: LinkSchedule | undefined) {
  const own = schedule ? await upsertScheduleFromLink(ctx, scope, flowId, { connectorId: name, jobType: 'read', schedule }) : null;
  await applyDefaultScheduleToTenant(ctx, scope, flowId, name);
  return own;
}
