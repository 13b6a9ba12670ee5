import { expect, it } from 'vitest';
import { describeEachStore, uniqueId } from '../../test/harness.ts';

describeEachStore('administration API', (h) => {
  it('creates an environment with the operator key: id, environment key and public key', async () => {
    const envId = uniqueId('acme');
    const res = await h().request({ method: 'POST', url: '/admin/environments', key: h().operatorKey, body: { env_id: envId } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.env_id).toBe(envId);
    expect(body.api_keys.environment).toMatch(/^tl_env_/);
    expect(body.api_keys.public).toMatch(/^tl_pub_/);
    const again = await h().request({ method: 'POST', url: '/admin/environments', key: h().operatorKey, body: { env_id: envId } });
    expect(again.statusCode).toBe(409);
    expect(again.json().Code).toBe('ConflictError');
  });

  it('refuses environment creation to every other key, in the error form', async () => {
    const env = await h().createEnv();
    for (const key of [undefined, 'tl_env_unknown', env.envKey, env.publicKey]) {
      const res = await h().request({ method: 'POST', url: '/admin/environments', key, body: { env_id: uniqueId() } });
      expect([401, 403]).toContain(res.statusCode);
      expect(Object.keys(res.json()).sort()).toEqual(['Code', 'Message']);
    }
  });

  it('validates environment ids and changes nothing on bad input', async () => {
    for (const env_id of ['', 'has space', 'admin', 'v2', '-lead', 'x'.repeat(65)]) {
      const res = await h().request({ method: 'POST', url: '/admin/environments', key: h().operatorKey, body: { env_id } });
      expect(res.statusCode).toBe(400);
      expect(res.json().Code).toBe('BadRequestError');
    }
    const list = (await h().request({ method: 'GET', url: '/admin/environments', key: h().operatorKey })).json();
    expect(list.environments).not.toContain('admin');
  });

  it('creates, lists and revokes keys; keys are shown once and stored only hashed', async () => {
    const env = await h().createEnv();
    const url = `/admin/environments/${env.envId}/api-keys`;
    const personal = (await h().request({ method: 'POST', url, key: env.envKey, body: { type: 'personal', role: 'viewer', user: 'ann' } })).json();
    expect(personal).toMatchObject({ type: 'personal', role: 'viewer', user: 'ann', revoked_at: null });
    expect(personal.key).toMatch(/^tl_pat_/);
    const bad = await h().request({ method: 'POST', url, key: env.envKey, body: { type: 'personal' } });
    expect(bad.statusCode).toBe(400);
    const listed = (await h().request({ method: 'GET', url, key: env.envKey })).json().api_keys;
    expect(listed).toHaveLength(3);
    expect(JSON.stringify(listed)).not.toContain(personal.key);
    const rows = await h().ctx.db.kysely.selectFrom('api_keys').selectAll().where('env_id', '=', env.envId).execute();
    expect(JSON.stringify(rows)).not.toContain(personal.key);
    expect(JSON.stringify(rows)).not.toContain(env.envKey);
    const revoked = await h().request({ method: 'DELETE', url: `${url}/${personal.id}`, key: env.envKey });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked_at).not.toBeNull();
    expect((await h().request({ method: 'DELETE', url: `${url}/key_nope`, key: env.envKey })).statusCode).toBe(404);
    expect((await h().request({ method: 'GET', url: `/admin/environments/${env.envId}`, key: personal.key })).statusCode).toBe(401);
  });

  it('viewer and developer keys cannot manage keys or settings', async () => {
    const env = await h().createEnv();
    const url = `/admin/environments/${env.envId}/api-keys`;
    for (const role of ['viewer', 'developer']) {
      const key = (await h().request({ method: 'POST', url, key: env.envKey, body: { type: 'personal', role, user: role } })).json().key;
      expect((await h().request({ method: 'POST', url, key, body: { type: 'environment' } })).statusCode).toBe(403);
      expect((await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key, body: { require_tenant_jwt: true } })).statusCode).toBe(403);
      expect((await h().request({ method: 'GET', url: `/admin/environments/${env.envId}`, key })).statusCode).toBe(200);
    }
  });

  it('updates settings, keeps webhook secrets out of every answer and the database', async () => {
    const env = await h().createEnv();
    const secret = 'whsec-super-secret-value-123';
    const res = await h().request({
      method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey,
      body: { require_tenant_jwt: true, preferences: { uiPreferences: { primaryColor: '#000000' } }, webhook_url: 'https://example.com/hook', webhook_secret: secret, cors_origins: ['https://app.example.com'] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ require_tenant_jwt: true, webhook_secret_set: true, webhook_url: 'https://example.com/hook' });
    expect(res.body).not.toContain(secret);
    const row = await h().ctx.db.kysely.selectFrom('environments').selectAll().where('env_id', '=', env.envId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret);
    const unknown = await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { nope: 1 } });
    expect(unknown.statusCode).toBe(400);
  });

  it('generates a signing key: private key returned once as base64 PEM, only the public key stored', async () => {
    const env = await h().createEnv();
    const res = (await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/signing-key`, key: env.envKey })).json();
    const pem = Buffer.from(res.private_key, 'base64').toString('utf8');
    expect(pem).toContain('BEGIN PRIVATE KEY');
    expect(res.public_key).toContain('BEGIN PUBLIC KEY');
    const row = await h().ctx.db.kysely.selectFrom('environments').selectAll().where('env_id', '=', env.envId).executeTakeFirstOrThrow();
    expect(row.signing_public_key).toBe(res.public_key);
    expect(JSON.stringify(row)).not.toContain(res.private_key);
  });

  it('deletes an environment with the operator key only; its keys stop working', async () => {
    const env = await h().createEnv();
    expect((await h().request({ method: 'DELETE', url: `/admin/environments/${env.envId}`, key: env.envKey })).statusCode).toBe(403);
    const res = await h().request({ method: 'DELETE', url: `/admin/environments/${env.envId}`, key: h().operatorKey });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ env_id: env.envId, deleted: true });
    expect((await h().request({ method: 'GET', url: `/admin/environments/${env.envId}`, key: env.envKey })).statusCode).toBe(401);
    expect((await h().request({ method: 'DELETE', url: `/admin/environments/${env.envId}`, key: h().operatorKey })).statusCode).toBe(404);
  });
});
