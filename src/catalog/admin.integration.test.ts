import { expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { envWithCatalog, TEST_CATALOG } from './testing.ts';

describeEachStore('catalog: administration', (h) => {
  const admin = (envId: string, path: string) => `/admin/environments/${envId}${path}`;

  it('puts, reads and deletes one available source; the client secret is never returned', async () => {
    const env = await h().createEnv();
    const put = await h().request({
      method: 'PUT', url: admin(env.envId, '/availableSources/tap-x'), key: env.envKey,
      body: { label: 'X', type: 'oauth', client_id: 'c', client_secret: 's3cr3t-value', revoke_url: 'https://x/revoke', run: { command: 'tap-x', args: ['-v'] } },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ tap: 'tap-x', label: 'X', client_secret_set: true, run: { command: 'tap-x', args: ['-v'] }, revoke_url: 'https://x/revoke' });
    expect(put.body).not.toContain('s3cr3t-value');
    const again = await h().request({ method: 'PUT', url: admin(env.envId, '/availableSources/tap-x'), key: env.envKey, body: { label: 'X2', run: { builtin: 'tap-sample' } } });
    expect(again.json()).toMatchObject({ label: 'X2', client_secret_set: true });
    const rows = await h().ctx.db.kysely.selectFrom('catalog_entries').selectAll().where('env_id', '=', env.envId).execute();
    expect(JSON.stringify(rows)).not.toContain('s3cr3t-value');
    const del = await h().request({ method: 'DELETE', url: admin(env.envId, '/availableSources/tap-x'), key: env.envKey });
    expect(del.json()).toEqual({ status: 'deleted', kind: 'source', name: 'tap-x' });
    const gone = await h().request({ method: 'GET', url: admin(env.envId, '/availableSources/tap-x'), key: env.envKey });
    expect(gone.statusCode).toBe(404);
  });

  it('rejects bad entries with precise messages', async () => {
    const env = await h().createEnv();
    const cases: Array<[string, unknown, RegExp]> = [
      ['/availableSources/tap-y', { label: 'Y' }, /needs "run"/],
      ['/availableSources/tap-y', { run: { builtin: 'x' }, fieldMap: { s: { name: 1 } } }, /fieldMap/],
      ['/availableSources/tap-y', { run: { builtin: 'x' }, connect_ui_params: { a: 'b' } }, /connect_ui_params\["a"\]/],
      ['/availableConnectors/c1', { job_types: ['write'], read: { builtin: 'x' } }, /no "write" run spec/],
      ['/availableSources/bad%20name', { run: { builtin: 'x' } }, /"tap" must be/],
    ];
    for (const [path, body, message] of cases) {
      const res = await h().request({ method: 'PUT', url: admin(env.envId, path), key: env.envKey, body });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().Message).toMatch(message);
    }
  });

  it('puts flows checking references, reserved ids and versions', async () => {
    const env = await envWithCatalog(h());
    const ok = await h().request({ method: 'PUT', url: admin(env.envId, '/flows/f3'), key: env.envKey, body: { taps: ['tap-sample'], etl: { command: ['python3', 'etl.py'] } } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: 'f3', version: 1, etl: { command: ['python3', 'etl.py'] }, export: null, discover: 'auto' });
    const bad: Array<[string, unknown, RegExp]> = [
      ['/flows/f4', { taps: ['tap-missing'] }, /"tap-missing" is not in the catalog/],
      ['/flows/flows', { taps: [] }, /reserved/],
      ['/flows/entity', { taps: [] }, /reserved/],
      ['/flows/f4', { version: 3 }, /"version" must be 1 or 2/],
      ['/flows/f4', { version: 2, taps: ['tap-sample'] }, /cannot have "taps"/],
      ['/flows/f4', { version: 2, connectors: ['reader'], export: { read: { connector: 'reader' } } }, /cannot write data/],
      ['/flows/f4', { id: 'other' }, /does not match/],
    ];
    for (const [path, body, message] of bad) {
      const res = await h().request({ method: 'PUT', url: admin(env.envId, path), key: env.envKey, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().Message).toMatch(message);
    }
  });

  it('masks export secrets in flow views and keeps them when the masked value is sent back', async () => {
    const env = await envWithCatalog(h());
    const read = await h().request({ method: 'GET', url: admin(env.envId, '/flows/f1'), key: env.envKey });
    expect(read.json().export).toEqual({ target: 'target-jsonl', config: { destination_path: '/tmp/out', password: '********' } });
    await h().request({ method: 'PUT', url: admin(env.envId, '/flows/f1'), key: env.envKey, body: read.json() });
    const { getFlow } = await import('./store.ts');
    const flow = await getFlow(h().ctx.db.kysely, h().ctx.secrets, { envId: env.envId, principal: { keyId: 's', type: 'operator', role: 'admin', user: null } }, 'f1');
    expect(flow?.export?.config).toEqual({ destination_path: '/tmp/out', password: 'export-secret' });
    const rows = await h().ctx.db.kysely.selectFrom('flows').select('spec').where('env_id', '=', env.envId).execute();
    expect(JSON.stringify(rows)).not.toContain('export-secret');
  });

  it('refuses to delete an entry a flow uses; deletes flows', async () => {
    const env = await envWithCatalog(h());
    const used = await h().request({ method: 'DELETE', url: admin(env.envId, '/availableTargets/target-jsonl'), key: env.envKey });
    expect(used.statusCode).toBe(409);
    expect(used.json().Message).toMatch(/f1/);
    const del = await h().request({ method: 'DELETE', url: admin(env.envId, '/flows/f1b'), key: env.envKey });
    expect(del.json()).toEqual({ status: 'deleted', flow_id: 'f1b' });
    const again = await h().request({ method: 'DELETE', url: admin(env.envId, '/flows/f1b'), key: env.envKey });
    expect(again.statusCode).toBe(404);
  });

  it('replaces the whole catalog in bulk, validating everything first', async () => {
    const env = await envWithCatalog(h());
    const bad = await h().request({ method: 'PUT', url: admin(env.envId, '/catalog'), key: env.envKey, body: { availableSources: [{ tap: 'a' }], flows: [{ id: 'x', taps: ['zzz'] }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().Message).toMatch(/availableSources\[0\].*run.*zzz/);
    const before = await h().request({ method: 'GET', url: admin(env.envId, '/catalog'), key: env.envKey });
    expect(before.json().flows).toHaveLength(3);
    const small = { availableSources: [TEST_CATALOG.availableSources[0]], flows: [{ id: 'only', taps: ['tap-sample'] }] };
    const res = await h().request({ method: 'PUT', url: admin(env.envId, '/catalog'), key: env.envKey, body: small });
    expect(res.json()).toEqual({ status: 'applied', availableSources: 1, availableTargets: 0, availableConnectors: 0, flows: 1, removed: { entries: 5, flows: 3 } });
    const after = await h().request({ method: 'GET', url: admin(env.envId, '/catalog'), key: env.envKey });
    expect(after.json().flows.map((f: { id: string }) => f.id)).toEqual(['only']);
  });

  it('round-trips the catalog document (GET then PUT keeps secrets)', async () => {
    const env = await envWithCatalog(h());
    const doc = (await h().request({ method: 'GET', url: admin(env.envId, '/catalog'), key: env.envKey })).json();
    expect(JSON.stringify(doc)).not.toMatch(/super-client-secret|export-secret/);
    const res = await h().request({ method: 'PUT', url: admin(env.envId, '/catalog'), key: env.envKey, body: doc });
    expect(res.statusCode).toBe(200);
    const again = (await h().request({ method: 'GET', url: admin(env.envId, '/catalog'), key: env.envKey })).json();
    expect(again).toEqual(doc);
    expect(again.availableSources.find((s: { tap: string }) => s.tap === 'tap-oauth').client_secret_set).toBe(true);
  });

  it('needs env:write to change and env:read to read', async () => {
    const env = await envWithCatalog(h());
    const viewer = await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/api-keys`, key: env.envKey, body: { type: 'personal', role: 'viewer', user: 'v' } });
    const key = viewer.json().key;
    expect((await h().request({ method: 'GET', url: admin(env.envId, '/flows'), key })).statusCode).toBe(200);
    expect((await h().request({ method: 'PUT', url: admin(env.envId, '/flows/f9'), key, body: {} })).statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url: admin(env.envId, '/catalog'), key: env.publicKey })).statusCode).toBe(403);
  });
});
