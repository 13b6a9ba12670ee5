// CORS for browser widgets: every call carries x-api-key, so every call is preflighted.
// Allowed origins: the global TAPLINE_CORS_ORIGINS list ('*' = any) plus each
// environment's own `cors_origins` setting.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from './context.ts';
import { getEnvironment } from './environments/store.ts';
import { systemEnvScope } from './auth/scope.ts';

const ALLOWED_HEADERS = ['x-api-key', 'content-type', 'idempotency-key'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The environment a path belongs to, for the per-environment allow-list. */
export function envIdOfPath(url: string): string | undefined {
  const segments = url.split('?')[0].split('/').filter(Boolean);
  if (['v2', 'tenant', 'tenants', 'entity'].includes(segments[0])) return segments[1];
  if (segments[0] === 'admin') return segments[1] === 'environments' ? segments[2] : undefined;
  return segments[0];
}

type CorsCallback = (error: Error | null, options: Record<string, unknown>) => void;

export function corsOriginChecker(ctx: AppContext) {
  const global = new Set(ctx.config.corsOrigins);
  const base = { methods: METHODS, allowedHeaders: ALLOWED_HEADERS, maxAge: 600 };
  return (req: FastifyRequest, callback: CorsCallback): void => {
    const origin = req.headers.origin;
    if (!origin) return callback(null, { ...base, origin: false });
    if (global.has('*') || global.has(origin)) return callback(null, { ...base, origin });
    const envId = envIdOfPath(req.url);
    if (!envId) return callback(null, { ...base, origin: false });
    getEnvironment(ctx.db.kysely, systemEnvScope(envId))
      .then((env) => callback(null, { ...base, origin: env?.settings.cors_origins.includes(origin) ? origin : false }))
      .catch(() => callback(null, { ...base, origin: false }));
  };
}
