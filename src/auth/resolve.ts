// Turns an x-api-key (and, for public keys, a tenant token) into a scope, once per request.
import type { AppContext } from '../context.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.ts';
import { getEnvironment } from '../environments/store.ts';
import { verifyTenantToken } from './jwt.ts';
import { hashApiKey } from './keys.ts';
import { isOperatorKey } from './operator-key.ts';
import { assertAllowed, type Operation } from './permissions.ts';
import type { EnvScope, Principal, TenantScope } from './scope.ts';
import { findActiveKeyByHash } from './store.ts';

export interface AuthRequest {
  readonly apiKey: string | undefined;
  readonly operation: Operation;
  readonly envId: string | undefined;
  readonly tenant: string | undefined;
  readonly token: string | undefined;
}

export interface ResolvedAuth {
  readonly principal: Principal;
  readonly env: EnvScope | null;
  readonly tenant: TenantScope | null;
  readonly requireTenantJwt: boolean;
}

const OPERATOR: Principal = Object.freeze({ keyId: 'operator', type: 'operator', role: 'admin', user: null });

async function principalFor(ctx: AppContext, apiKey: string | undefined, envId: string | undefined): Promise<Principal> {
  if (!apiKey) throw new UnauthorizedError('Missing x-api-key header');
  if (await isOperatorKey(ctx, apiKey)) return OPERATOR;
  const record = await findActiveKeyByHash(ctx.db.kysely, hashApiKey(apiKey));
  if (!record) throw new UnauthorizedError('Invalid or revoked API key');
  if (envId === undefined) throw new ForbiddenError('This operation needs the operator key');
  if (record.env_id !== envId) {
    throw new ForbiddenError('This API key does not belong to this environment');
  }
  return { keyId: record.id, type: record.type, role: record.role, user: record.user };
}

async function tenantTokenValid(ctx: AppContext, publicKeyPem: string | null, tenant: string, token: string | undefined): Promise<boolean> {
  if (token === undefined) return false;
  if (!publicKeyPem) throw new UnauthorizedError('This environment has no signing key, so tenant tokens cannot be verified');
  const check = await verifyTenantToken({ token, publicKeyPem, tenant, clockSkewSeconds: ctx.config.jwtClockSkewSeconds });
  if (!check.ok) throw new UnauthorizedError(`Invalid tenant token: ${check.reason}`);
  return true;
}

export async function resolveAuth(ctx: AppContext, req: AuthRequest): Promise<ResolvedAuth> {
  const principal = await principalFor(ctx, req.apiKey, req.envId);
  if (req.envId === undefined) {
    assertAllowed(principal, req.operation, { requireTenantJwt: false, tenantJwt: false });
    return { principal, env: null, tenant: null, requireTenantJwt: false };
  }
  const env: EnvScope = { envId: req.envId, principal };
  // Public keys depend on environment settings; backend keys do not need the row here.
  const needsEnvRow = principal.type === 'public' || principal.type === 'operator';
  const row = needsEnvRow ? await getEnvironment(ctx.db.kysely, env) : null;
  if (needsEnvRow && !row) throw new NotFoundError(`Environment "${req.envId}" not found`);
  const requireTenantJwt = row?.settings.require_tenant_jwt ?? false;
  const tenantJwt = principal.type === 'public' && req.tenant !== undefined
    ? await tenantTokenValid(ctx, row?.signing_public_key ?? null, req.tenant, req.token)
    : false;
  assertAllowed(principal, req.operation, { requireTenantJwt, tenantJwt });
  const tenant = req.tenant === undefined ? null : { ...env, tenant: req.tenant, tenantJwt };
  return { principal, env, tenant, requireTenantJwt };
}
