// Tenants: list them (Tapline extension) and delete one with all its data.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envScope, tenantScope } from '../auth/plugin.ts';
import { EnvId, TenantId } from '../catalog/schemas.ts';
import type { AppContext } from '../context.ts';
import * as service from './service.ts';

const tags = ['Tenants'];

export const tenantRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/tenants/:env_id', {
    config: { auth: 'env:read' },
    schema: {
      tags, summary: 'List tenants (filter: tenant id prefix, so a tenant and its subtenants)',
      params: Type.Object({ env_id: EnvId }),
      querystring: Type.Object({
        tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
        page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
        count: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
      }),
    },
  }, async (req) => service.listTenants(ctx, envScope(req), req.query));

  app.delete('/tenant/:env_id/:tenant', {
    config: { auth: 'tenant:delete' },
    schema: {
      tags, summary: 'Delete all data of a tenant; revoke_oauth=true also revokes its OAuth tokens (RFC 7009)',
      params: Type.Object({ env_id: EnvId, tenant: TenantId }),
      querystring: Type.Object({
        revoke_oauth: Type.Optional(Type.Boolean({ default: false })),
        force: Type.Optional(Type.Boolean({ default: false, description: 'Required to delete the "default" tenant' })),
      }),
    },
  }, async (req) => service.deleteTenant(ctx, tenantScope(req), { revokeOauth: req.query.revoke_oauth === true, force: req.query.force === true }));
};
