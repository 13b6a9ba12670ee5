// Every domain's HTTP routes, registered by buildApp in this order.
import type { FastifyInstance } from 'fastify';
import { connectionRoutes } from './catalog/index.ts';
import type { AppContext } from './context.ts';
import { environmentRoutes } from './environments/routes.ts';
import { jobRoutes } from './jobs/index.ts';
import { scheduleRoutes } from './schedules/routes.ts';
import { webhookRoutes } from './webhooks/index.ts';

type RoutePlugin = (app: FastifyInstance, opts: { ctx: AppContext }) => Promise<void>;

export const domainRoutes: RoutePlugin[] = [
  environmentRoutes as unknown as RoutePlugin,
  connectionRoutes as unknown as RoutePlugin,
  jobRoutes as unknown as RoutePlugin,
  scheduleRoutes as unknown as RoutePlugin,
  webhookRoutes as unknown as RoutePlugin,
];
