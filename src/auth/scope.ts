// Who is calling and what they may reach. The auth layer builds a scope once per
// request; every store function takes one, so no query can cross environments.

export type KeyType = 'environment' | 'personal' | 'public' | 'operator';
export type Role = 'admin' | 'developer' | 'viewer';

export interface Principal {
  readonly keyId: string;
  readonly type: KeyType;
  readonly role: Role | null;
  readonly user: string | null;
}

export interface EnvScope {
  readonly envId: string;
  readonly principal: Principal;
}

export interface TenantScope extends EnvScope {
  readonly tenant: string;
  /** A valid tenant JWT for exactly this tenant came with the request. */
  readonly tenantJwt: boolean;
}

/** For background work (workers, scheduler) acting on stored rows of one environment. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ keyId: 'system', type: 'operator', role: 'admin', user: null });

export function systemEnvScope(envId: string): EnvScope {
  return { envId, principal: SYSTEM_PRINCIPAL };
}

export function systemTenantScope(envId: string, tenant: string): TenantScope {
  return { envId, tenant, principal: SYSTEM_PRINCIPAL, tenantJwt: false };
}

export function tenantScopeOf(scope: EnvScope, tenant: string): TenantScope {
  return { envId: scope.envId, principal: scope.principal, tenant, tenantJwt: false };
}
