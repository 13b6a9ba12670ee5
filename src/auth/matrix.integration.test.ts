// The full auth matrix through the real auth plugin: every key type and role on
// every operation class, and every tenant-token failure mode.
import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { describeEachStore, type TestEnv } from '../../test/harness.ts';
import { PERMISSIONS, type Operation } from './permissions.ts';

const OPERATIONS = Object.keys(PERMISSIONS) as Operation[];
type Keys = Record<'environment' | 'admin' | 'developer' | 'viewer' | 'public', string>;

function probeUrl(op: Operation, envId: string, tenant = 'acme'): string {
  if (op === 'operator') return `/__probe/operator`;
  return `/__probe/${op.replace(':', '-')}/${envId}/flow1/${tenant}`;
}

async function sign(privateKeyBase64: string, claims: Record<string, unknown>, alg = 'RS256'): Promise<string> {
  const key = crypto.createPrivateKey(Buffer.from(privateKeyBase64, 'base64').toString('utf8'));
  return new SignJWT(claims).setProtectedHeader({ alg }).sign(key);
}

describeEachStore('auth matrix', (h) => {
  let env: TestEnv;
  let other: TestEnv;
  let keys: Keys;
  let privateKey: string;

  beforeAll(async () => {
    for (const op of OPERATIONS) {
      const url = op === 'operator' ? '/__probe/operator' : `/__probe/${op.replace(':', '-')}/:env_id/:flow_id/:tenant`;
      h().app.get(url, { config: { auth: op } }, async () => ({ ok: true }));
    }
    env = await h().createEnv();
    other = await h().createEnv();
    const make = async (role: string) => (await h().request({
      method: 'POST', url: `/admin/environments/${env.envId}/api-keys`, key: env.envKey,
      body: { type: 'personal', role, user: `u-${role}` },
    })).json().key as string;
    keys = { environment: env.envKey, public: env.publicKey, admin: await make('admin'), developer: await make('developer'), viewer: await make('viewer') };
    privateKey = (await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/signing-key`, key: env.envKey })).json().private_key;
  });

  it('answers every key type and role on every operation class as the matrix says', async () => {
    for (const op of OPERATIONS) {
      for (const [column, key] of Object.entries(keys)) {
        const grant = PERMISSIONS[op][column as keyof Keys];
        const res = await h().request({ method: 'GET', url: probeUrl(op, env.envId), key });
        const expected = grant === 'yes' || grant === 'jwt-if-required' ? 200 : grant === 'jwt' ? 401 : 403;
        expect({ op, column, status: res.statusCode }).toEqual({ op, column, status: expected });
        if (res.statusCode !== 200) expect(Object.keys(res.json()).sort()).toEqual(['Code', 'Message']);
      }
      const asOperator = await h().request({ method: 'GET', url: probeUrl(op, env.envId), key: h().operatorKey });
      expect(asOperator.statusCode).toBe(200);
    }
  });

  it('rejects no key, an unknown key, a revoked key and another environment\'s key', async () => {
    const url = probeUrl('tenant:read', env.envId);
    expect((await h().request({ method: 'GET', url })).json()).toEqual({ Code: 'UnauthorizedError', Message: 'Missing x-api-key header' });
    expect((await h().request({ method: 'GET', url, key: 'tl_env_nope' })).statusCode).toBe(401);
    expect((await h().request({ method: 'GET', url, key: other.envKey })).statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url, key: other.publicKey })).statusCode).toBe(403);
    const created = (await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/api-keys`, key: env.envKey, body: { type: 'environment' } })).json();
    expect((await h().request({ method: 'GET', url, key: created.key })).statusCode).toBe(200);
    await h().request({ method: 'DELETE', url: `/admin/environments/${env.envId}/api-keys/${created.id}`, key: env.envKey });
    expect((await h().request({ method: 'GET', url, key: created.key })).statusCode).toBe(401);
  });

  it('lets public keys reach tenant operations only with a valid token once the environment requires it', async () => {
    const patch = await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { require_tenant_jwt: true } });
    expect(patch.statusCode).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const good = await sign(privateKey, { sub: 'acme', iat: now, exp: now + 3600 });
    const url = probeUrl('tenant:write', env.envId);
    expect((await h().request({ method: 'GET', url, key: keys.public })).statusCode).toBe(401);
    expect((await h().request({ method: 'GET', url: `${url}?token=${good}`, key: keys.public })).statusCode).toBe(200);
    expect((await h().request({ method: 'GET', url: probeUrl('catalog:read', env.envId), key: keys.public })).statusCode).toBe(200);
    expect((await h().request({ method: 'GET', url, key: keys.developer })).statusCode).toBe(200);
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { require_tenant_jwt: false } });
  });

  it('rejects every bad tenant token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const url = probeUrl('tenant:secrets', env.envId);
    const publicPem = (await h().request({ method: 'POST', url: `/admin/environments/${other.envId}/signing-key`, key: other.envKey })).json().public_key;
    const encode = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const cases: Record<string, string> = {
      missing: '',
      expired: await sign(privateKey, { sub: 'acme', iat: now - 7200, exp: now - 3600 }),
      noExp: await sign(privateKey, { sub: 'acme', iat: now }),
      wrongSub: await sign(privateKey, { sub: 'someone-else', iat: now, exp: now + 3600 }),
      futureIat: await sign(privateKey, { sub: 'acme', iat: now + 3600, exp: now + 7200 }),
      algNone: `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: 'acme', exp: now + 60 })}.`,
      hs256WithPublicKeyAsSecret: await new SignJWT({ sub: 'acme', iat: now, exp: now + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(publicPem)),
      hs256: await new SignJWT({ sub: 'acme', iat: now, exp: now + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!')),
      otherEnvironmentKey: await sign((await h().request({ method: 'POST', url: `/admin/environments/${other.envId}/signing-key`, key: other.envKey })).json().private_key, { sub: 'acme', iat: now, exp: now + 60 }),
      garbage: 'not.a.jwt',
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await h().request({ method: 'GET', url: token ? `${url}?token=${token}` : url, key: keys.public });
      expect({ name, status: res.statusCode, code: res.json().Code }).toEqual({ name, status: 401, code: 'UnauthorizedError' });
    }
    const good = await sign(privateKey, { sub: 'acme', iat: now, exp: now + 3600 });
    expect((await h().request({ method: 'GET', url: `${url}?token=${good}`, key: keys.public })).statusCode).toBe(200);
    const forOtherTenant = await h().request({ method: 'GET', url: `${probeUrl('tenant:secrets', env.envId, 'globex')}?token=${good}`, key: keys.public });
    expect(forOtherTenant.statusCode).toBe(401);
  });
});
