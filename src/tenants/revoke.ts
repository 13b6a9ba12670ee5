// Best-effort OAuth token revocation (RFC 7009) when a tenant is deleted with
// revoke_oauth=true. Never throws; reports each attempt without secrets.
import type { TenantScope } from '../auth/scope.ts';
import { getEntry, openEntrySecrets } from '../catalog/store.ts';
import type { AppContext } from '../context.ts';
import { openConfig } from '../links/resolve.ts';
import { listTenantLinks } from '../links/store.ts';

export interface RevocationResult {
  flow_id: string;
  kind: string;
  name: string;
  ok: boolean;
  status?: number;
  error?: string;
}

const TIMEOUT_MS = 10_000;

interface Revocation {
  url: string;
  token: string;
  hint: 'refresh_token' | 'access_token';
  clientId: string | undefined;
  clientSecret: string | undefined;
}

async function revoke(r: Revocation): Promise<{ ok: boolean; status?: number; error?: string }> {
  const form = new URLSearchParams({ token: r.token, token_type_hint: r.hint });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (r.clientId && r.clientSecret) {
    // RFC 6749 §2.3.1: client id and secret form-encoded, then HTTP Basic.
    const basic = `${encodeURIComponent(r.clientId)}:${encodeURIComponent(r.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  } else if (r.clientId) {
    form.set('client_id', r.clientId);
  }
  try {
    const res = await fetch(r.url, { method: 'POST', headers, body: form.toString(), signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? { ok: true, status: res.status } : { ok: false, status: res.status, error: `revocation endpoint answered HTTP ${res.status}` };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : 'revocation endpoint unreachable';
    return { ok: false, error: reason };
  }
}

/** Revokes the tokens of the tenant's own (not symlinked) links whose catalog entry names a revoke_url. */
export async function revokeTenantTokens(ctx: AppContext, scope: TenantScope): Promise<RevocationResult[]> {
  const results: RevocationResult[] = [];
  for (const link of await listTenantLinks(ctx.db.kysely, scope)) {
    if (link.symlink) continue;
    const stored = await getEntry(ctx.db.kysely, scope, link.kind, link.name);
    if (!stored?.entry.revoke_url) continue;
    const config = openConfig(ctx.secrets, link.configEnc);
    const refresh = typeof config.refresh_token === 'string' && config.refresh_token !== '' ? config.refresh_token : undefined;
    const access = typeof config.access_token === 'string' && config.access_token !== '' ? config.access_token : undefined;
    const base = { flow_id: link.flowId, kind: link.kind, name: link.name };
    if (!refresh && !access) {
      results.push({ ...base, ok: false, error: 'no refresh_token or access_token in the config' });
      continue;
    }
    const outcome = await revoke({
      url: stored.entry.revoke_url, token: (refresh ?? access) as string, hint: refresh ? 'refresh_token' : 'access_token',
      clientId: stored.entry.client_id, clientSecret: openEntrySecrets(ctx.secrets, stored).client_secret,
    });
    results.push({ ...base, ...outcome });
  }
  return results;
}
