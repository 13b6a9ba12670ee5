// GET /entity/{env_id}/{tenant}/linked?entity=: where a tenant (or, for a subtenant,
// its parent) has already linked a source or connector, so a client can offer "use the
// same account?" and send the chosen item back as `symlink` ({id, tenant, entity}).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { tenantScope } from '../auth/plugin.ts';
import { tenantScopeOf, type TenantScope } from '../auth/scope.ts';
import { EnvId, TenantId } from '../catalog/schemas.ts';
import { listFlows } from '../catalog/store.ts';
import { publicFlow } from '../catalog/views.ts';
import type { AppContext } from '../context.ts';
import { listTenantLinks } from './store.ts';
import { parentTenant } from './validate.ts';

export async function linkedEntities(ctx: AppContext, scope: TenantScope, entity: string) {
  const flows = new Map((await listFlows(ctx.db.kysely, ctx.secrets, scope)).map((f) => [f.id, f]));
  const tenants = [...new Set([scope.tenant, parentTenant(scope.tenant)])];
  const items = [];
  for (const tenant of tenants) {
    for (const link of await listTenantLinks(ctx.db.kysely, tenantScopeOf(scope, tenant))) {
      const flow = flows.get(link.flowId);
      if (!flow || link.symlink || link.name !== entity || link.kind === 'target') continue;
      items.push({ ...publicFlow(flow), entity: link.name, tenant, kind: link.kind });
    }
  }
  return items;
}

export const entityRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/entity/:env_id/:tenant/linked', {
    config: { auth: 'tenant:read' },
    schema: {
      tags: ['Linked sources (v1)'],
      summary: 'Flows where the tenant (or its parent) linked a source or connector: candidates for `symlink` (Tapline extension)',
      params: Type.Object({ env_id: EnvId, tenant: TenantId }),
      querystring: Type.Object({ entity: Type.String({ minLength: 1, maxLength: 128 }), token: Type.Optional(Type.String()) }),
    },
  }, async (req) => linkedEntities(ctx, tenantScope(req), req.query.entity));
};
