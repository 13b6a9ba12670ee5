// Fastify wiring of authentication: every route declares `config.auth` (an Operation
// or 'none'); a preHandler resolves the scope once and handlers read it from the request.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.ts';
import { InternalError } from '../errors.ts';
import { assertAllowed, type Operation } from './permissions.ts';
import { resolveAuth, type ResolvedAuth } from './resolve.ts';
import type { EnvScope, TenantScope } from './scope.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: Operation | 'none';
    /** Where the tenant id is, when not the `tenant` path parameter. */
    tenantFrom?: 'query.user_id';
  }
  interface FastifyRequest {
    auth: ResolvedAuth | null;
  }
}

function tenantOf(req: FastifyRequest): string | undefined {
  const params = req.params as Record<string, string | undefined>;
  if (req.routeOptions.config.tenantFrom === 'query.user_id') {
    return (req.query as Record<string, string | undefined>).user_id;
  }
  return params.tenant;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: { ctx: AppContext }) => {
  app.decorateRequest('auth', null);
  app.addHook('onRoute', (route) => {
    const auth = (route.config as { auth?: string } | undefined)?.auth;
    if (auth === undefined && !route.url.startsWith('/docs')) {
      throw new Error(`Route ${route.method} ${route.url} declares no config.auth`);
    }
  });
  app.addHook('preHandler', async (req) => {
    const operation = req.routeOptions.config.auth;
    if (operation === undefined || operation === 'none') return;
    const params = req.params as Record<string, string | undefined>;
    const query = (req.query ?? {}) as Record<string, string | undefined>;
    const header = req.headers['x-api-key'];
    req.auth = await resolveAuth(opts.ctx, {
      apiKey: Array.isArray(header) ? header[0] : header,
      operation,
      envId: params.env_id,
      tenant: tenantOf(req),
      token: query.token,
    });
  });
}, { name: 'tapline-auth' });

export function envScope(req: FastifyRequest): EnvScope {
  if (!req.auth?.env) throw new InternalError('route has no environment scope');
  return req.auth.env;
}

export function tenantScope(req: FastifyRequest): TenantScope {
  if (!req.auth?.tenant) throw new InternalError('route has no tenant scope');
  return req.auth.tenant;
}

/** For `config=true`: throws unless this caller may see unmasked secrets. */
export function assertMaySeeSecrets(req: FastifyRequest): void {
  const auth = req.auth;
  if (!auth) throw new InternalError('route has no auth');
  assertAllowed(auth.principal, 'tenant:secrets', { requireTenantJwt: auth.requireTenantJwt, tenantJwt: auth.tenant?.tenantJwt ?? false });
}
