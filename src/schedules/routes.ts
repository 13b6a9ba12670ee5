// Schedule routes (PUT/GET/DELETE …/jobs/schedule) and the scheduler's background starter.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assertMaySeeSecrets, tenantScope } from '../auth/plugin.ts';
import { backgroundStarters } from '../background.ts';
import type { AppContext } from '../context.ts';
import { startScheduler } from './scheduler.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';

backgroundStarters.push((ctx) => startScheduler(ctx));

const tags = ['Schedules'];
const PATH = '/:env_id/:flow_id/:tenant/jobs/schedule';

/** Like linked sources: callers not allowed secrets get the masked form, not an error. */
function maySeeSecrets(req: FastifyRequest): boolean {
  try {
    assertMaySeeSecrets(req);
    return true;
  } catch {
    return false;
  }
}

function selector(query: S.SelectQuery): service.ScheduleSelector {
  return { connectorId: query.connector_id, jobType: query.job_type };
}

export const scheduleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.put(PATH, {
    config: { auth: 'tenant:write' },
    schema: {
      tags, summary: 'Create or update a tenant schedule', params: S.TenantParams, querystring: S.PutQuery, body: S.ScheduleBody,
    },
  }, async (req) => {
    const applyToExisting = req.body.apply_to_existing ?? req.query.apply_to_existing;
    return service.putSchedule(ctx, tenantScope(req), req.params.flow_id, { ...req.body, apply_to_existing: applyToExisting });
  });

  app.get(PATH, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'Read a tenant schedule', params: S.TenantParams, querystring: S.SelectQuery },
  }, async (req) => service.getSchedule(ctx, tenantScope(req), req.params.flow_id, selector(req.query), {
    revealSecrets: req.query.config === true && maySeeSecrets(req),
  }));

  app.delete(PATH, {
    config: { auth: 'tenant:write' },
    schema: { tags, summary: 'Delete a tenant schedule', params: S.TenantParams, querystring: S.SelectQuery },
  }, async (req) => service.deleteSchedule(ctx, tenantScope(req), req.params.flow_id, selector(req.query)));

  app.get(`${PATH}s`, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'List a tenant\'s schedules in a flow (Tapline extension)', params: S.TenantParams },
  }, async (req) => ({ schedules: await service.listSchedules(ctx, tenantScope(req), req.params.flow_id) }));
};
