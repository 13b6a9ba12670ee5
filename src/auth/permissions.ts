// The permission matrix: which key type and role may call which class of operation.
// One table, mirrored in docs/api.md ("Permissions").
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import type { Principal } from './scope.ts';

export type Operation =
  | 'operator' // create, list, delete environments
  | 'env:admin' // API keys, signing key, environment settings
  | 'env:write' // connector catalog and flows
  | 'env:read' // tenants list, environment settings, webhook deliveries
  | 'catalog:read' // available sources/connectors, flows, preferences (widget reads)
  | 'tenant:read' // a tenant's links (masked), jobs, schedules, logs
  | 'tenant:write' // link/unlink, run/kill jobs, schedules, clear state
  | 'tenant:delete' // delete a tenant and all its data
  | 'tenant:secrets'; // a tenant's unmasked config (config=true)

/** 'jwt' = allowed with a valid tenant JWT; 'jwt-if-required' = JWT needed when the environment requires it. */
type Grant = 'yes' | 'no' | 'jwt' | 'jwt-if-required';

type Column = 'operator' | 'environment' | 'admin' | 'developer' | 'viewer' | 'public';

export const PERMISSIONS: Record<Operation, Record<Column, Grant>> = {
  'operator':       { operator: 'yes', environment: 'no',  admin: 'no',  developer: 'no',  viewer: 'no',  public: 'no' },
  'env:admin':      { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'no',  viewer: 'no',  public: 'no' },
  'env:write':      { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'no',  public: 'no' },
  'env:read':       { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'yes', public: 'no' },
  'catalog:read':   { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'yes', public: 'yes' },
  'tenant:read':    { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'yes', public: 'jwt-if-required' },
  'tenant:write':   { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'no',  public: 'jwt-if-required' },
  'tenant:delete':  { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'no',  public: 'no' },
  'tenant:secrets': { operator: 'yes', environment: 'yes', admin: 'yes', developer: 'yes', viewer: 'no',  public: 'jwt' },
};

function columnOf(principal: Principal): Column {
  if (principal.type === 'personal') return principal.role ?? 'viewer';
  return principal.type;
}

export interface JwtContext {
  readonly requireTenantJwt: boolean;
  readonly tenantJwt: boolean;
}

/** Throws ForbiddenError (or UnauthorizedError when only a tenant JWT is missing). */
export function assertAllowed(principal: Principal, operation: Operation, jwt: JwtContext): void {
  const grant = PERMISSIONS[operation][columnOf(principal)];
  if (grant === 'yes') return;
  const needsJwt = grant === 'jwt' || (grant === 'jwt-if-required' && jwt.requireTenantJwt);
  if (grant !== 'no' && !needsJwt) return;
  if (grant !== 'no' && jwt.tenantJwt) return;
  if (grant !== 'no') {
    throw new UnauthorizedError('A valid tenant token (query parameter "token") is required for this operation');
  }
  throw new ForbiddenError(`This API key may not perform ${operation} operations`);
}

export function isAllowed(principal: Principal, operation: Operation, jwt: JwtContext): boolean {
  try {
    assertAllowed(principal, operation, jwt);
    return true;
  } catch {
    return false;
  }
}
