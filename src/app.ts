// Builds the Fastify application: plugins, central error handling, routes.
// No listening and no background work here (see server.ts / worker.ts).
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { authPlugin } from './auth/plugin.ts';
import type { AppContext } from './context.ts';
import { corsOriginChecker } from './cors.ts';
import { migrationsApplied } from './db/connect.ts';
import { domainRoutes } from './routes.ts';
import { errorBody, NotFoundError, toAppError } from './errors.ts';
import { redactUrl } from './logging.ts';

export interface AppDeps {
  /** Extra route plugins (each domain registers itself in routes.ts of the app). */
  readonly routes?: ReadonlyArray<(app: FastifyInstance, ctx: AppContext) => Promise<void> | void>;
}

/**
 * Real clients send `Content-Type: application/json` with no body on GET and DELETE;
 * treat an empty body as no body instead of failing the request.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    return json(req, body as string, done);
  });
}

function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, req, reply) => {
    const appError = toAppError(error, req.id);
    if (appError.status >= 500) req.log.error({ err: error, url: redactUrl(req.url) }, 'request failed');
    void reply.status(appError.status).send(errorBody(appError));
  });
  app.setNotFoundHandler((req, reply) => {
    const error = new NotFoundError(`No route ${req.method} ${redactUrl(req.url).split('?')[0]}`);
    void reply.status(404).send(errorBody(error));
  });
}

async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tapline API', version: '1.2.0', description: 'Compatible with the Tenant Data-Connection and Job Service API 1.2, plus Tapline extensions.' },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
}

function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', { config: { auth: 'none' }, schema: { tags: ['Health'] } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: 'none' }, schema: { tags: ['Health'] } }, async (_req, reply) => {
    const ready = await migrationsApplied(ctx.db).catch(() => false);
    if (!ready) return reply.status(503).send({ Code: 'NotReady', Message: 'Database unreachable or migrations pending' });
    return { status: 'ready' };
  });
}

export async function buildApp(ctx: AppContext, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    // tenant ids may be 128 characters; Fastify's default would answer 414 past 100.
    routerOptions: { maxParamLength: 256 },
    genReqId: () => crypto.randomUUID(),
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false } },
  });
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);
  await app.register(cors, {
    delegator: corsOriginChecker(ctx),
  });
  await registerOpenApi(app);
  await app.register(authPlugin, { ctx });
  registerHealth(app, ctx);
  for (const plugin of domainRoutes) await app.register(plugin, { ctx });
  for (const register of deps.routes ?? []) await register(app, ctx);
  return app;
}
