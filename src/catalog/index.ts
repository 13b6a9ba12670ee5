// All routes of the connections domain (catalog, flows, links, tenants), registered
// from src/routes.ts with one line. Importing routes.ts also registers the demo seeder.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { entityRoutes } from '../links/entity.ts';
import { linkRoutes } from '../links/routes.ts';
import { tenantRoutes } from '../tenants/routes.ts';
import { catalogAdminRoutes } from './admin-routes.ts';
import { catalogRoutes } from './routes.ts';

export const connectionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, opts) => {
  await app.register(catalogRoutes, opts);
  await app.register(catalogAdminRoutes, opts);
  await app.register(linkRoutes, opts);
  await app.register(entityRoutes, opts);
  await app.register(tenantRoutes, opts);
};
