// Public catalog reads (widgets): available sources/targets/connectors, supported
// flows and what they offer, the environment's widget preferences.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envScope, tenantScope } from '../auth/plugin.ts';
import type { AppContext } from '../context.ts';
import { linkedFlowIds } from '../links/store.ts';
import { widgetPreferencesOf } from './preferences.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';
import { publicFlow } from './views.ts';
import * as store from './store.ts';
import './demo.ts';

const tags = ['Sources and flows'];
const v2tags = ['V2 connectors'];

export const catalogRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/:env_id/availableSources', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'List sources (taps) available in the environment', params: S.EnvParams },
  }, async (req) => service.availableEntries(ctx, envScope(req), 'source'));

  app.get('/:env_id/availableTargets', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'List targets available in the environment', params: S.EnvParams },
  }, async (req) => service.availableEntries(ctx, envScope(req), 'target'));

  app.get('/v2/:env_id/availableConnectors', {
    config: { auth: 'catalog:read' },
    schema: { tags: v2tags, summary: 'List v2 connectors available in the environment', params: S.EnvParams },
  }, async (req) => service.availableEntries(ctx, envScope(req), 'connector'));

  app.get('/:env_id/flows/supported', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'List the flows of the environment', params: S.EnvParams },
  }, async (req) => service.supportedFlows(ctx, envScope(req)));

  app.get('/:env_id/flows/:flow_id/supported', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'Read one flow', params: S.EnvFlowParams },
  }, async (req) => service.supportedFlow(ctx, envScope(req), req.params.flow_id));

  app.get('/:env_id/flows/linked', {
    config: { auth: 'tenant:read', tenantFrom: 'query.user_id' },
    schema: { tags, summary: 'Flows where a tenant (user_id) has a linked source, target or connector', params: S.EnvParams, querystring: S.LinkedFlowsQuery },
  }, async (req) => {
    const scope = tenantScope(req);
    const flows = await store.listFlows(ctx.db.kysely, ctx.secrets, scope);
    const linked = new Set(await linkedFlowIds(ctx.db.kysely, scope));
    return flows.filter((f) => linked.has(f.id)).map(publicFlow);
  });

  app.get('/:env_id/:flow_id/supportedSources', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'Sources (taps) offered by a v1 flow', params: S.EnvFlowParams },
  }, async (req) => service.flowEntries(ctx, envScope(req), req.params.flow_id, 'source'));

  app.get('/:env_id/:flow_id/supportedTargets', {
    config: { auth: 'catalog:read' },
    schema: { tags, summary: 'Targets offered by a v1 flow', params: S.EnvFlowParams },
  }, async (req) => service.flowEntries(ctx, envScope(req), req.params.flow_id, 'target'));

  app.get('/v2/:env_id/:flow_id/supportedConnectors', {
    config: { auth: 'catalog:read' },
    schema: { tags: v2tags, summary: 'Connectors offered by a v2 flow', params: S.EnvFlowParams },
  }, async (req) => service.flowEntries(ctx, envScope(req), req.params.flow_id, 'connector'));

  app.get('/:env_id/preferences', {
    config: { auth: 'catalog:read' },
    schema: {
      tags, summary: 'Widget preferences of the environment (uiPreferences.primaryColor defaults to #1e88e5; widget feature flags default to true)', params: S.EnvParams,
      response: { 200: Type.Record(Type.String(), Type.Unknown()) },
    },
  }, async (req) => widgetPreferencesOf(ctx, envScope(req)));
};
