import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { describeEachStore, uniqueId, type TestEnv } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';

describeEachStore('connections: auth matrix', (h) => {
  async function setup(requireJwt: boolean) {
    const env = await envWithCatalog(h());
    const signing = await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/signing-key`, key: env.envKey });
    const privateKey = crypto.createPrivateKey(Buffer.from(signing.json().private_key, 'base64').toString('utf8'));
    if (requireJwt) await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { require_tenant_jwt: true } });
    const tenant = uniqueId('t');
    await h().request({ method: 'POST', url: `/${env.envId}/f1/${tenant}/linkedSources`, key: env.envKey, body: sampleLink() });
    const token = (sub: string, expSeconds = 3600) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setSubject(sub).setIssuedAt(now).setExpirationTime(now + expSeconds).sign(privateKey);
    };
    return { env, tenant, token, url: `/${env.envId}/f1/${tenant}/linkedSources` };
  }

  async function personalKey(env: TestEnv, role: string): Promise<string> {
    const res = await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/api-keys`, key: env.envKey, body: { type: 'personal', role, user: role } });
    return res.json().key;
  }

  it('public key + require_tenant_jwt: tenant routes need a tenant JWT for exactly that tenant', async () => {
    const { env, tenant, token, url } = await setup(true);
    expect((await h().request({ method: 'GET', url, key: env.publicKey })).statusCode).toBe(401);
    expect((await h().request({ method: 'GET', url: `${url}?token=${await token(tenant)}`, key: env.publicKey })).statusCode).toBe(200);
    expect((await h().request({ method: 'GET', url: `${url}?token=${await token('someone-else')}`, key: env.publicKey })).statusCode).toBe(401);
    expect((await h().request({ method: 'GET', url: `${url}?token=${await token(tenant, -120)}`, key: env.publicKey })).statusCode).toBe(401);
    expect((await h().request({ method: 'POST', url, key: env.publicKey, body: sampleLink() })).statusCode).toBe(401);
    expect((await h().request({ method: 'POST', url: `${url}?token=${await token(tenant)}`, key: env.publicKey, body: sampleLink() })).statusCode).toBe(200);
    const linkedFlows = `/${env.envId}/flows/linked?user_id=${tenant}`;
    expect((await h().request({ method: 'GET', url: linkedFlows, key: env.publicKey })).statusCode).toBe(401);
    const flows = await h().request({ method: 'GET', url: `${linkedFlows}&token=${await token(tenant)}`, key: env.publicKey });
    expect(flows.json().map((f: { id: string }) => f.id)).toEqual(['f1']);
    expect((await h().request({ method: 'GET', url: `/${env.envId}/availableSources`, key: env.publicKey })).statusCode).toBe(200);
  });

  it('config=true with a public key unmasks only with a valid token, even when the environment does not require one', async () => {
    const { env, tenant, token, url } = await setup(false);
    expect((await h().request({ method: 'GET', url, key: env.publicKey })).json()[0].config.api_key).toBe('********');
    // Widgets always send config=true: without a token they get the masked config, not an error.
    const noToken = await h().request({ method: 'GET', url: `${url}?config=true`, key: env.publicKey });
    expect(noToken.statusCode).toBe(200);
    expect(noToken.json()[0].config.api_key).toBe('********');
    const other = await h().request({ method: 'GET', url: `${url}?config=true&token=${await token('other')}`, key: env.publicKey });
    expect(other.statusCode).toBe(401);
    const ok = await h().request({ method: 'GET', url: `${url}?config=true&token=${await token(tenant)}`, key: env.publicKey });
    expect(ok.json()[0].config.api_key).toBe('sk-live-123');
  });

  it('viewer keys read masked links but never unmasked secrets, and cannot change links', async () => {
    const { env, url } = await setup(false);
    const viewer = await personalKey(env, 'viewer');
    expect((await h().request({ method: 'GET', url, key: viewer })).json()[0].config.api_key).toBe('********');
    const asked = await h().request({ method: 'GET', url: `${url}?config=true`, key: viewer });
    expect(asked.statusCode).toBe(200);
    expect(asked.json()[0].config.api_key).toBe('********');
    expect(asked.body).not.toContain('sk-live-123');
    expect((await h().request({ method: 'POST', url, key: viewer, body: sampleLink() })).statusCode).toBe(403);
    expect((await h().request({ method: 'DELETE', url: `${url}?tap_name=tap-sample`, key: viewer })).statusCode).toBe(403);
    const developer = await personalKey(env, 'developer');
    expect((await h().request({ method: 'GET', url: `${url}?config=true`, key: developer })).json()[0].config.api_key).toBe('sk-live-123');
  });

  it('cross-environment access fails', async () => {
    const { env, url, tenant } = await setup(false);
    const other = await h().createEnv();
    for (const key of [other.envKey, other.publicKey]) {
      expect((await h().request({ method: 'GET', url, key })).statusCode).toBe(403);
      expect((await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key })).statusCode).toBe(403);
      expect((await h().request({ method: 'GET', url: `/tenants/${env.envId}`, key })).statusCode).toBe(403);
    }
    // The other environment's own paths never show this environment's links.
    const own = await h().request({ method: 'GET', url: `/${other.envId}/f1/${tenant}/linkedSources`, key: other.envKey });
    expect(own.statusCode).toBe(404);
  });

  it('cross-tenant access fails: a token for one tenant reaches no other tenant', async () => {
    const { env, tenant, token } = await setup(true);
    const victim = uniqueId('v');
    await h().request({ method: 'POST', url: `/${env.envId}/f1/${victim}/linkedSources`, key: env.envKey, body: sampleLink() });
    const mine = await token(tenant);
    for (const [method, url] of [
      ['GET', `/${env.envId}/f1/${victim}/linkedSources?config=true&token=${mine}`],
      ['DELETE', `/${env.envId}/f1/${victim}/linkedSources?tap_name=tap-sample&token=${mine}`],
      ['DELETE', `/${env.envId}/f1/${victim}/linkedSources/state?token=${mine}`],
      ['GET', `/${env.envId}/flows/linked?user_id=${victim}&token=${mine}`],
    ] as const) {
      expect((await h().request({ method, url, key: env.publicKey })).statusCode, url).toBe(401);
    }
  });

  it('tenant deletion and listing are for backend keys only', async () => {
    const { env, tenant, token } = await setup(false);
    const del = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}?token=${await token(tenant)}`, key: env.publicKey });
    expect(del.statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url: `/tenants/${env.envId}`, key: env.publicKey })).statusCode).toBe(403);
    const viewer = await personalKey(env, 'viewer');
    expect((await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key: viewer })).statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url: `/tenants/${env.envId}`, key: viewer })).statusCode).toBe(200);
  });
});
