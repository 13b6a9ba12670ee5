// Catalog and flow administration (Tapline extension), under /admin/environments/{env_id}.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envScope } from '../auth/plugin.ts';
import type { AppContext } from '../context.ts';
import { applyCatalogDocument, catalogDocument } from './bulk.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';
import type { CatalogKind } from './types.ts';

const tags = ['Catalog administration (Tapline extension)'];
const base = '/admin/environments/:env_id';

const SECTIONS: ReadonlyArray<[string, CatalogKind, string]> = [
  ['availableSources', 'source', 'tap'], ['availableTargets', 'target', 'target'], ['availableConnectors', 'connector', 'id'],
];

export const catalogAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(`${base}/catalog`, {
    config: { auth: 'env:read' },
    schema: { tags, summary: 'Read the whole catalog and flows (run specs shown, secrets never)', params: S.EnvParams },
  }, async (req) => catalogDocument(ctx, envScope(req)));

  app.put(`${base}/catalog`, {
    config: { auth: 'env:write' },
    schema: { tags, summary: 'Replace the whole catalog and flows (same JSON as --catalog file.json)', params: S.EnvParams, body: S.AnyObject },
  }, async (req) => applyCatalogDocument(ctx, envScope(req), req.body));

  for (const [section, kind, member] of SECTIONS) {
    const params = Type.Object({ env_id: S.EnvId, name: Type.String({ minLength: 1, maxLength: 128 }) });
    app.get(`${base}/${section}`, {
      config: { auth: 'env:read' },
      schema: { tags, summary: `List ${section} with their run specs`, params: S.EnvParams },
    }, async (req) => service.listAdminEntries(ctx, envScope(req), kind));

    app.get(`${base}/${section}/:name`, {
      config: { auth: 'env:read' },
      schema: { tags, summary: `Read one of ${section} (by ${member})`, params },
    }, async (req) => service.getAdminEntry(ctx, envScope(req), kind, req.params.name));

    app.put(`${base}/${section}/:name`, {
      config: { auth: 'env:write' },
      schema: { tags, summary: `Create or replace one of ${section} (by ${member})`, params, body: S.AnyObject },
    }, async (req) => service.putEntry(ctx, envScope(req), kind, req.params.name, req.body));

    app.delete(`${base}/${section}/:name`, {
      config: { auth: 'env:write' },
      schema: { tags, summary: `Remove one of ${section} (409 while a flow uses it)`, params },
    }, async (req) => service.deleteEntry(ctx, envScope(req), kind, req.params.name));
  }

  app.get(`${base}/flows`, {
    config: { auth: 'env:read' },
    schema: { tags, summary: 'List flows with their export side and ETL setting', params: S.EnvParams },
  }, async (req) => service.listAdminFlows(ctx, envScope(req)));

  app.get(`${base}/flows/:flow_id`, {
    config: { auth: 'env:read' },
    schema: { tags, summary: 'Read one flow with its export side and ETL setting', params: S.EnvFlowParams },
  }, async (req) => service.getAdminFlow(ctx, envScope(req), req.params.flow_id));

  app.put(`${base}/flows/:flow_id`, {
    config: { auth: 'env:write' },
    schema: { tags, summary: 'Create or replace a flow', params: S.EnvFlowParams, body: S.AnyObject },
  }, async (req) => service.putFlow(ctx, envScope(req), req.params.flow_id, req.body));

  app.delete(`${base}/flows/:flow_id`, {
    config: { auth: 'env:write' },
    schema: { tags, summary: 'Remove a flow definition', params: S.EnvFlowParams },
  }, async (req) => service.deleteFlow(ctx, envScope(req), req.params.flow_id));
};
