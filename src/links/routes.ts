// HTTP routes of linked sources and targets (v1) and linked connectors (v2). The
// three families share one implementation; only paths and member names differ.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tenantScope } from '../auth/plugin.ts';
import { isAllowed } from '../auth/permissions.ts';
import type { AppContext } from '../context.ts';
import type { LinkSchedule } from '../schedules/service.ts';
import { discoveryStatus, startDiscovery } from './discovery.ts';
import { stopDiscoveries } from './discovery-run.ts';
import * as S from './schemas.ts';
import { linkItem, listLinked } from './service.ts';
import type { LinkKind } from './types.ts';
import { clearItemState, patchItem, unlinkItem } from './update.ts';

interface Family {
  kind: LinkKind;
  base: string;
  tags: string[];
  noun: string;
  /** Body member holding the link; name member of PATCH; query member of GET filter and DELETE. */
  outer: string;
  patchName: string;
  queryName: string;
}

const FAMILIES: Family[] = [
  { kind: 'source', base: '/:env_id/:flow_id/:tenant/linkedSources', tags: ['Linked sources (v1)'], noun: 'source', outer: 'source', patchName: 'tap', queryName: 'tap_name' },
  { kind: 'target', base: '/:env_id/:flow_id/:tenant/linkedTargets', tags: ['Linked sources (v1)'], noun: 'target', outer: 'target', patchName: 'target', queryName: 'target_name' },
  { kind: 'connector', base: '/v2/:env_id/:flow_id/:tenant/linkedConnectors', tags: ['V2 connectors'], noun: 'connector', outer: 'connector', patchName: 'connector_id', queryName: 'connector_id' },
];

type Query = Record<string, string | boolean | undefined>;

/**
 * config=true shows secrets only to callers allowed tenant:secrets (a public key needs
 * the tenant's token); others get the masked config rather than an error, because
 * widgets always ask with config=true (docs/widget-compat.md, GAP-3).
 */
function maySeeSecrets(req: FastifyRequest): boolean {
  const auth = req.auth;
  if (!auth) return false;
  return isAllowed(auth.principal, 'tenant:secrets', { requireTenantJwt: auth.requireTenantJwt, tenantJwt: auth.tenant?.tenantJwt ?? false });
}
type Body = Record<string, unknown>;

function register(app: FastifyInstance, ctx: AppContext, f: Family): void {
  const params = S.TenantParams;
  app.get(f.base, {
    config: { auth: 'tenant:read' },
    schema: { tags: f.tags, summary: `Retrieve the tenant's linked ${f.noun}s (config masked unless config=true and the caller may see secrets)`, params, querystring: S.listQuery(f.queryName) },
  }, async (req) => {
    const q = req.query as Query;
    const { flow_id } = req.params as { flow_id: string };
    const unmasked = q.config === true && maySeeSecrets(req);
    return listLinked(ctx, tenantScope(req), flow_id, f.kind, { unmasked, catalog: q.catalog === true, name: q[f.queryName] as string | undefined });
  });

  app.post(f.base, {
    config: { auth: 'tenant:write' },
    schema: { tags: f.tags, summary: `Link a ${f.noun} to the tenant (replaces the config of an existing link)`, params, body: S.linkBody(f.outer) },
  }, async (req) => {
    const body = req.body as Body;
    const { flow_id } = req.params as { flow_id: string };
    return linkItem(ctx, tenantScope(req), flow_id, f.kind, body, body.schedule as LinkSchedule | undefined);
  });

  app.patch(f.base, {
    config: { auth: 'tenant:write' },
    schema: { tags: f.tags, summary: `Update the config (merge) or field map of a linked ${f.noun}`, params, body: S.patchBody(f.patchName) },
  }, async (req) => {
    const body = req.body as Body;
    const { flow_id } = req.params as { flow_id: string };
    return patchItem(ctx, tenantScope(req), flow_id, f.kind, {
      name: body[f.patchName] as string,
      field_map: body.field_map,
      config: body.config as Record<string, unknown> | null | undefined,
      delete_fields: body.delete_fields as string[] | undefined,
    });
  });

  app.delete(f.base, {
    config: { auth: 'tenant:write' },
    schema: { tags: f.tags, summary: `Unlink a ${f.noun} (permanent)`, params, querystring: S.nameQuery(f.queryName, true) },
  }, async (req) => {
    const { flow_id } = req.params as { flow_id: string };
    return unlinkItem(ctx, tenantScope(req), flow_id, f.kind, (req.query as Query)[f.queryName] as string);
  });

  if (f.kind === 'target') return;
  registerDiscovery(app, ctx, f, f.kind);
  app.delete(`${f.base}/state`, {
    config: { auth: 'tenant:write' },
    schema: { tags: f.tags, summary: `Clear the stored state (next job is a full sync); without ${f.queryName}, of every linked ${f.noun} in the flow`, params, querystring: S.nameQuery(f.queryName, false) },
  }, async (req) => {
    const { flow_id } = req.params as { flow_id: string };
    return clearItemState(ctx, tenantScope(req), flow_id, f.kind, (req.query as Query)[f.queryName] as string | undefined);
  });
}

/** Discovery outside jobs (docs/widget-compat.md GAP-2): the widget starts it with GET, hence GET and POST. */
function registerDiscovery(app: FastifyInstance, ctx: AppContext, f: Family, kind: 'source' | 'connector'): void {
  const schema = {
    tags: f.tags, params: S.TenantParams, querystring: S.nameQuery(f.queryName, true),
    summary: `Start discovering the linked ${f.noun}'s catalog in the background (Tapline: answers at once; one run per link)`,
  };
  const start = async (req: FastifyRequest) => startDiscovery(ctx, tenantScope(req), (req.params as { flow_id: string }).flow_id, kind, (req.query as Query)[f.queryName] as string);
  app.get(`${f.base}/discover`, { config: { auth: 'tenant:write' }, schema }, start);
  app.post(`${f.base}/discover`, { config: { auth: 'tenant:write' }, schema }, start);
  app.get(`${f.base}/discover/poll`, {
    config: { auth: 'tenant:read' },
    schema: { ...schema, summary: `Status of the linked ${f.noun}'s latest discovery (status STOPPED once it ended; outcome in discover_status)` },
  }, async (req) => discoveryStatus(ctx, tenantScope(req), (req.params as { flow_id: string }).flow_id, kind, (req.query as Query)[f.queryName] as string));
}

export const linkRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const family of FAMILIES) register(app as unknown as FastifyInstance, ctx, family);
  // Background discoveries end (DISCOVER_FAILED "stopped") before the database closes.
  app.addHook('onClose', async () => stopDiscoveries(ctx));
};
