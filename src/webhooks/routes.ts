// Delivery log API (Tapline extension).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { envScope } from '../auth/plugin.ts';
import type { AppContext } from '../context.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';

const tags = ['Webhooks (Tapline extension)'];

export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/admin/environments/:env_id/webhooks/deliveries', {
    config: { auth: 'env:read' },
    schema: {
      tags, summary: 'List recent webhook deliveries of an environment, newest first',
      params: S.DeliveryListParams, querystring: S.DeliveryListQuery, response: { 200: S.DeliveryPage },
    },
  }, async (req) => service.listDeliveries(ctx, envScope(req), req.query));

  app.get('/admin/environments/:env_id/webhooks/deliveries/:id', {
    config: { auth: 'env:read' },
    schema: { tags, summary: 'Read one webhook delivery', params: S.DeliveryParams, response: { 200: S.DeliveryView } },
  }, async (req) => service.getDelivery(ctx, envScope(req), req.params.id));

  app.post('/admin/environments/:env_id/webhooks/deliveries/:id/redeliver', {
    config: { auth: 'env:admin' },
    schema: { tags, summary: 'Send a delivery again (a new delivery with the same event id and body)', params: S.DeliveryParams, response: { 200: S.DeliveryView } },
  }, async (req) => service.redeliver(ctx, envScope(req), req.params.id));
};
