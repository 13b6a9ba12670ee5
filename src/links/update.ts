// Changing a link (config merge, field map, deleted fields), unlinking it, and
// clearing its stored state.
import type { TenantScope } from '../auth/scope.ts';
import { getEntry } from '../catalog/store.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { deleteSchedulesForLink } from '../schedules/service.ts';
import { badInput, flowFor, linkEvent, NAME_PARAM } from './common.ts';
import { cancelDiscovery } from './discovery-run.ts';
import { parseFieldMap, type FieldMap } from './field-map.ts';
import { openConfig } from './resolve.ts';
import { keepMaskedSecrets, passwordParams } from './secrets.ts';
import { requireLink } from './service.ts';
import { clearStates, deleteLink, patchLink } from './store.ts';
import type { LinkKind } from './types.ts';
import { identityChanged, missingParams } from './validate.ts';

export interface LinkPatchRequest {
  name: string;
  field_map?: unknown;
  config?: Record<string, unknown> | null;
  delete_fields?: string[];
}

/**
 * The widget's OAuth reconnect PATCHes `config: {isReconnecting: true|false}`: a link flag,
 * not part of the tap's config (GAP-7). Returns the config without it (null when nothing is left).
 */
function splitReconnecting(config: Record<string, unknown> | null | undefined): { config: Record<string, unknown> | null | undefined; isReconnecting?: boolean } {
  if (!config || !Object.hasOwn(config, 'isReconnecting')) return { config };
  const { isReconnecting, ...rest } = config;
  return { config: Object.keys(rest).length > 0 ? rest : null, isReconnecting: isReconnecting === true || isReconnecting === 'true' };
}

export async function patchItem(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, req: LinkPatchRequest) {
  await flowFor(ctx, scope, flowId, kind);
  const link = await requireLink(ctx, scope, flowId, kind, req.name);
  const entry = (await getEntry(ctx.db.kysely, scope, kind, req.name))?.entry;
  const { config, isReconnecting } = splitReconnecting(req.config);
  const changesConfig = (config !== undefined && config !== null) || (req.delete_fields?.length ?? 0) > 0;
  if (changesConfig && link.symlink) {
    throw new BadRequestError(`"${req.name}" shares the config of another link (symlink): change the original's config instead`);
  }
  const fieldMap: FieldMap | null | undefined = req.field_map === undefined ? undefined : badInput(() => parseFieldMap(req.field_map));
  const updated: string[] = [];
  let configEnc: string | undefined;
  let clearState = false;
  if (changesConfig) {
    const before = openConfig(ctx.secrets, link.configEnc);
    const merged = { ...before, ...keepMaskedSecrets(config ?? {}, before, passwordParams(entry?.connect_ui_params)) };
    for (const key of req.delete_fields ?? []) delete merged[key];
    const missing = entry ? missingParams(entry, merged) : [];
    if (missing.length > 0) throw new BadRequestError(`Missing required config for "${req.name}": ${missing.join(', ')}`, { missing });
    configEnc = ctx.secrets.sealJson(merged);
    clearState = identityChanged(entry, before, merged);
    updated.push('config');
  }
  if (fieldMap !== undefined) updated.push('field_map');
  if (isReconnecting !== undefined) updated.push('isReconnecting');
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await patchLink(trx, scope, flowId, { kind, name: req.name }, {
      ...(configEnc !== undefined ? { configEnc } : {}),
      ...(fieldMap !== undefined ? { fieldMap } : {}),
      ...(clearState ? { state: null } : {}),
      ...(isReconnecting !== undefined ? { isReconnecting } : {}),
    }, ctx.now());
    if (updated.length > 0) await linkEvent(trx, ctx, scope, 'connection.updated', flowId, kind, req.name);
  });
  return { status: 'updated', [NAME_PARAM[kind]]: req.name, flow_id: flowId, tenant: scope.tenant, updated, state_cleared: clearState };
}

/** Permanent: the link's config, field map, catalog, state and schedules go. */
export async function unlinkItem(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, name: string) {
  await flowFor(ctx, scope, flowId, kind);
  await requireLink(ctx, scope, flowId, kind, name);
  const schedules = await ctx.db.kysely.transaction().execute(async (trx) => {
    const removed = kind === 'target' ? 0 : await deleteSchedulesForLink(trx, scope, flowId, name);
    await deleteLink(trx, scope, flowId, { kind, name });
    await linkEvent(trx, ctx, scope, 'connection.unlinked', flowId, kind, name);
    return removed;
  });
  cancelDiscovery(ctx, scope, flowId, { kind, name }, 'the link was removed');
  return { status: 'unlinked', [NAME_PARAM[kind]]: name, flow_id: flowId, tenant: scope.tenant, schedules_removed: schedules };
}

/** Clears the stored state of one link (`name`) or of all the tenant's links of `kind` in the flow. */
export async function clearItemState(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, name: string | undefined) {
  await flowFor(ctx, scope, flowId, kind);
  if (name !== undefined) await requireLink(ctx, scope, flowId, kind, name);
  const cleared = await clearStates(ctx.db.kysely, scope, flowId, kind, name);
  return { status: 'cleared', flow_id: flowId, tenant: scope.tenant, ...(name !== undefined ? { [NAME_PARAM[kind]]: name } : {}), cleared };
}

