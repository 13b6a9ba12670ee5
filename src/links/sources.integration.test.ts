import { expect, it } from 'vitest';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';

describeEachStore('linked sources (v1)', (h) => {
  async function linked(body: unknown = sampleLink()) {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('ten');
    const url = `/${env.envId}/f1/${tenant}/linkedSources`;
    const res = await h().request({ method: 'POST', url, key: env.envKey, body });
    return { env, tenant, url, res };
  }

  it('links a source and reads it back masked, in the shape of the API description', async () => {
    const { env, tenant, url, res } = await linked(sampleLink({ extra: 1 }, { record_count: 5 }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'linked', tap: 'tap-sample', flow_id: 'f1', tenant, replaced: false, state_kept: false, symlinked: false });
    const list = await h().request({ method: 'GET', url, key: env.envKey });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([{
      tap: 'tap-sample', tenant_id: tenant, flow_id: 'f1', domain: 'example.com', label: 'Sample', icon: 'https://example.com/i.png',
      type: 'api', tags: ['crm'], fieldMap: { contacts: { name: 'Contact', selected: ['id', 'email'] } },
      config: { start_date: '2024-01-01T00:00:00Z', api_key: '********', subdomain: 'acme', record_count: 5 },
      disconnected: false, isReconnecting: false, symlink: null, has_state: false,
      discover_task_status: null,
      created_at: expect.any(String), updated_at: expect.any(String),
    }]);
    expect(list.body).not.toContain('sk-live-123');
  });

  it('answers the unmasked config with config=true for a backend key, and the catalog with catalog=true', async () => {
    const { env, url } = await linked();
    const res = await h().request({ method: 'GET', url: `${url}?config=true&catalog=true`, key: env.envKey });
    expect(res.json()[0].config.api_key).toBe('sk-live-123');
    expect(res.json()[0].catalog).toBeNull();
  });

  it('accepts the whole catalog entry sent back as the source, storing only config', async () => {
    const env = await envWithCatalog(h());
    const entry = (await h().request({ method: 'GET', url: `/${env.envId}/availableSources`, key: env.publicKey })).json()[1];
    const res = await h().request({ method: 'POST', url: `/${env.envId}/f1/t1/linkedSources`, key: env.publicKey, body: { source: { ...entry, config: { api_key: 'k', subdomain: 's' } } } });
    expect(res.statusCode).toBe(200);
  });

  it('filters by tap_name and ignores login_state', async () => {
    const { env, url } = await linked();
    const none = await h().request({ method: 'GET', url: `${url}?tap_name=tap-oauth&login_state=x`, key: env.envKey });
    expect(none.json()).toEqual([]);
    const one = await h().request({ method: 'GET', url: `${url}?tap_name=tap-sample`, key: env.envKey });
    expect(one.json()).toHaveLength(1);
  });

  it('rejects unknown taps, taps the flow does not offer, missing required params and unknown flows', async () => {
    const env = await envWithCatalog(h());
    const post = (flow: string, body: unknown) => h().request({ method: 'POST', url: `/${env.envId}/${flow}/t/linkedSources`, key: env.envKey, body });
    const unknown = await post('f1', { source: { tap: 'tap-nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().Message).toMatch(/"tap-nope" is not offered by flow "f1"/);
    expect((await post('f1', { source: { tap: 'tap-unoffered' } })).json().Message).toMatch(/"tap-unoffered" is not offered/);
    const missing = await post('f1', { source: { tap: 'tap-sample', config: { api_key: 'k' } } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ Code: 'BadRequestError', Message: expect.stringContaining('subdomain'), missing: ['subdomain'] });
    expect((await post('nope', sampleLink())).statusCode).toBe(404);
    expect((await post('f2', sampleLink())).json().Message).toMatch(/v2 flow/);
    expect((await post('f1', { tap: 'tap-sample' })).statusCode).toBe(400);
    expect((await post('f1', { source: {} })).json().Message).toMatch(/"source.tap" is required/);
  });

  it('validates the field map: absent → default, null → none, bad shape → 400', async () => {
    const env = await envWithCatalog(h());
    const post = (tenant: string, extra: Record<string, unknown>) =>
      h().request({ method: 'POST', url: `/${env.envId}/f1/${tenant}/linkedSources`, key: env.envKey, body: sampleLink(extra) });
    const get = async (tenant: string) => (await h().request({ method: 'GET', url: `/${env.envId}/f1/${tenant}/linkedSources`, key: env.envKey })).json()[0];
    await post('a', {});
    expect((await get('a')).fieldMap).toEqual({ contacts: { name: 'Contact', selected: ['id', 'email'] } });
    await post('b', { field_map: null });
    expect((await get('b')).fieldMap).toBeNull();
    await post('c', { field_map: { deals: { name: 'Deal', selected: ['id'] } } });
    expect((await get('c')).fieldMap).toEqual({ deals: { name: 'Deal', selected: ['id'] } });
    const bad = await post('d', { field_map: { deals: { name: 'Deal', selected: 'id' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().Message).toMatch(/field_map\["deals"\]\.selected must be an array of strings/);
  });

  it('relinking replaces the config, keeps a masked secret, and keeps state unless the account changes', async () => {
    const { env, url, tenant } = await linked();
    const { commitSourceState } = await import('./job-plan.ts');
    const scope = { envId: env.envId, tenant, principal: { keyId: 's', type: 'operator' as const, role: 'admin' as const, user: null }, tenantJwt: false };
    await commitSourceState(h().ctx.db.kysely, scope, 'f1', { kind: 'source', name: 'tap-sample' }, { bookmarks: { a: 1 } });
    const same = await h().request({ method: 'POST', url, key: env.envKey, body: sampleLink({}, { api_key: '********', record_count: 9 }) });
    expect(same.json()).toMatchObject({ replaced: true, state_kept: true });
    const read = (await h().request({ method: 'GET', url: `${url}?config=true`, key: env.envKey })).json()[0];
    expect(read.config).toMatchObject({ api_key: 'sk-live-123', record_count: 9 });
    expect(read.has_state).toBe(true);
    const other = await h().request({ method: 'POST', url, key: env.envKey, body: sampleLink({}, { subdomain: 'other-co' }) });
    expect(other.json()).toMatchObject({ replaced: true, state_kept: false });
  });

  it('patches config by merge, deletes fields, changes the field map', async () => {
    const { env, url } = await linked(sampleLink({}, { record_count: 5 }));
    const res = await h().request({ method: 'PATCH', url, key: env.envKey, body: { tap: 'tap-sample', config: { api_key: 'sk-new' }, delete_fields: ['record_count'], field_map: null } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'updated', tap: 'tap-sample', updated: ['config', 'field_map'], state_cleared: false });
    const read = (await h().request({ method: 'GET', url: `${url}?config=true`, key: env.envKey })).json()[0];
    expect(read.config).toEqual({ start_date: '2024-01-01T00:00:00Z', api_key: 'sk-new', subdomain: 'acme' });
    expect(read.fieldMap).toBeNull();
  });

  it('takes config.isReconnecting as a link flag, not config; linking again clears it (GAP-7)', async () => {
    const { env, url } = await linked(sampleLink({}, { record_count: 5 }));
    const read = async () => (await h().request({ method: 'GET', url: `${url}?config=true`, key: env.envKey })).json()[0];
    const patch = (config: unknown) => h().request({ method: 'PATCH', url, key: env.envKey, body: { tap: 'tap-sample', config } });
    const on = await patch({ isReconnecting: true });
    expect(on.json()).toMatchObject({ updated: ['isReconnecting'], state_cleared: false });
    const during = await read();
    expect(during.isReconnecting).toBe(true);
    expect(during.config).toEqual({ start_date: '2024-01-01T00:00:00Z', api_key: 'sk-live-123', subdomain: 'acme', record_count: 5 });
    expect((await patch({ isReconnecting: false, record_count: 6 })).json().updated).toEqual(['config', 'isReconnecting']);
    expect(await read()).toMatchObject({ isReconnecting: false, config: { record_count: 6 } });
    expect((await read()).config.isReconnecting).toBeUndefined();
    await patch({ isReconnecting: true });
    await h().request({ method: 'POST', url, key: env.envKey, body: sampleLink() });
    expect((await read()).isReconnecting).toBe(false);
  });

  it('rejects bad patches: unknown link, required field deleted, bad field map', async () => {
    const { env, url } = await linked();
    const patch = (body: unknown) => h().request({ method: 'PATCH', url, key: env.envKey, body });
    expect((await patch({ tap: 'tap-oauth', config: {} })).statusCode).toBe(404);
    const del = await patch({ tap: 'tap-sample', delete_fields: ['subdomain'] });
    expect(del.statusCode).toBe(400);
    expect(del.json().Message).toMatch(/subdomain/);
    expect((await patch({ tap: 'tap-sample', field_map: { s: 1 } })).statusCode).toBe(400);
    expect((await patch({ config: {} })).statusCode).toBe(400);
  });

  it('unlinks permanently; tap_name is required', async () => {
    const { env, url } = await linked({ ...sampleLink(), schedule: { schedule_expression: '0 * * * *', state: 'ENABLED' } });
    expect((await h().request({ method: 'DELETE', url, key: env.envKey })).statusCode).toBe(400);
    const res = await h().request({ method: 'DELETE', url: `${url}?tap_name=tap-sample`, key: env.envKey });
    expect(res.json()).toMatchObject({ status: 'unlinked', tap: 'tap-sample', schedules_removed: 1 });
    expect((await h().request({ method: 'GET', url, key: env.envKey })).json()).toEqual([]);
    expect((await h().request({ method: 'DELETE', url: `${url}?tap_name=tap-sample`, key: env.envKey })).statusCode).toBe(404);
  });

  it('creates a schedule from the link body, and rejects an invalid one before linking', async () => {
    const { env, tenant, url, res } = await linked({ ...sampleLink(), schedule: { schedule_expression: '*/5 * * * *', state: 'ENABLED' } });
    expect(res.json().schedule).toMatchObject({ schedule_expression: '*/5 * * * *', state: 'ENABLED' });
    const rows = await h().ctx.db.kysely.selectFrom('schedules').selectAll().where('env_id', '=', env.envId).where('tenant', '=', tenant).execute();
    expect(rows.map((r) => [r.connector_id, r.expression])).toEqual([['tap-sample', '*/5 * * * *']]);
    const bad = await h().request({ method: 'POST', url: url.replace(tenant, 'x2'), key: env.envKey, body: { ...sampleLink(), schedule: { schedule_expression: 'every day' } } });
    expect(bad.statusCode).toBe(400);
    expect((await h().request({ method: 'GET', url: url.replace(tenant, 'x2'), key: env.envKey })).json()).toEqual([]);
  });

  it('clears the state of one source or of all', async () => {
    const { env, url, tenant } = await linked();
    const { commitSourceState } = await import('./job-plan.ts');
    const scope = { envId: env.envId, tenant, principal: { keyId: 's', type: 'operator' as const, role: 'admin' as const, user: null }, tenantJwt: false };
    const link = { kind: 'source' as const, name: 'tap-sample' };
    await commitSourceState(h().ctx.db.kysely, scope, 'f1', link, { x: 1 });
    const all = await h().request({ method: 'DELETE', url: `${url}/state`, key: env.envKey });
    expect(all.json()).toEqual({ status: 'cleared', flow_id: 'f1', tenant, cleared: 1 });
    await commitSourceState(h().ctx.db.kysely, scope, 'f1', link, { x: 1 });
    const one = await h().request({ method: 'DELETE', url: `${url}/state?tap_name=tap-sample`, key: env.envKey });
    expect(one.json()).toEqual({ status: 'cleared', flow_id: 'f1', tenant, tap: 'tap-sample', cleared: 1 });
    expect((await h().request({ method: 'DELETE', url: `${url}/state?tap_name=tap-oauth`, key: env.envKey })).statusCode).toBe(404);
  });

  it('rejects bad tenant ids', async () => {
    const env = await envWithCatalog(h());
    const long = 'x'.repeat(129);
    // 414 until Fastify's maxParamLength (default 100) is raised above 128 in buildApp.
    expect([400, 414]).toContain((await h().request({ method: 'GET', url: `/${env.envId}/f1/${long}/linkedSources`, key: env.envKey })).statusCode);
    expect((await h().request({ method: 'GET', url: `/${env.envId}/f1/a%20b/linkedSources`, key: env.envKey })).statusCode).toBe(400);
    expect((await h().request({ method: 'GET', url: `/${env.envId}/f1/a%2Fb/linkedSources`, key: env.envKey })).statusCode).toBe(400);
  });
});
