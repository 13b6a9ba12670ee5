import { expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';
import { resolveJobPlan } from './job-plan.ts';

describeEachStore('symlinked links', (h) => {
  async function setup() {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('t');
    const original = `/${env.envId}/f1/${tenant}/linkedSources`;
    await h().request({ method: 'POST', url: original, key: env.envKey, body: sampleLink() });
    return { env, tenant, original, linked: `/${env.envId}/f1b/${tenant}/linkedSources` };
  }

  it('reads the live credentials of the original, and turns disconnected when it is unlinked', async () => {
    const { env, tenant, original, linked } = await setup();
    const res = await h().request({ method: 'POST', url: linked, key: env.envKey, body: { source: { tap: 'tap-sample', symlink: { id: 'f1' } } } });
    expect(res.json()).toMatchObject({ status: 'linked', symlinked: true });
    await h().request({ method: 'PATCH', url: original, key: env.envKey, body: { tap: 'tap-sample', config: { api_key: 'rotated-key' } } });
    const read = (await h().request({ method: 'GET', url: `${linked}?config=true`, key: env.envKey })).json()[0];
    expect(read).toMatchObject({ disconnected: false, symlink: { id: 'f1', tenant, entity: 'tap-sample' }, config: { api_key: 'rotated-key', subdomain: 'acme' } });
    const plan = await resolveJobPlan(h().ctx, systemTenantScope(env.envId, tenant), 'f1b', {});
    expect(plan.source.config.api_key).toBe('rotated-key');
    await h().request({ method: 'DELETE', url: `${original}?tap_name=tap-sample`, key: env.envKey });
    const after = (await h().request({ method: 'GET', url: linked, key: env.envKey })).json()[0];
    expect(after).toMatchObject({ disconnected: true, error: { message: expect.stringMatching(/was unlinked; link it again/) } });
    await expect(resolveJobPlan(h().ctx, systemTenantScope(env.envId, tenant), 'f1b', {})).rejects.toThrow(/disconnected/);
  });

  it('rejects symlinks to missing links, to other environments, with config, and config patches on them', async () => {
    const { env, linked } = await setup();
    const post = (symlink: unknown, config?: unknown) => h().request({ method: 'POST', url: linked, key: env.envKey, body: { source: { tap: 'tap-sample', symlink, config } } });
    expect((await post({ id: 'f2' })).json().Message).toMatch(/has no linked source "tap-sample" in flow "f2"/);
    expect((await post({ id: 'f1', env_id: 'other' })).json().Message).toMatch(/Cross-environment symlinks are impossible/);
    expect((await post({ id: 'f1' }, { api_key: 'x' })).json().Message).toMatch(/omit "config"/);
    expect((await post({})).statusCode).toBe(400);
    await post({ id: 'f1' });
    const patch = await h().request({ method: 'PATCH', url: linked, key: env.envKey, body: { tap: 'tap-sample', config: { api_key: 'y' } } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().Message).toMatch(/symlink/);
  });

  it('shares credentials across tenants: any tenant for a backend key, only the tenant family for a public key', async () => {
    const { env, tenant } = await setup();
    const body = { source: { tap: 'tap-sample', symlink: { id: 'f1', tenant } } };
    const backend = await h().request({ method: 'POST', url: `/${env.envId}/f1b/stranger/linkedSources`, key: env.envKey, body });
    expect(backend.statusCode).toBe(200);
    const publicStranger = await h().request({ method: 'POST', url: `/${env.envId}/f1b/stranger2/linkedSources`, key: env.publicKey, body });
    expect(publicStranger.statusCode).toBe(403);
    const sub = await h().request({ method: 'POST', url: `/${env.envId}/f1b/${tenant}_1/linkedSources`, key: env.publicKey, body });
    expect(sub.statusCode).toBe(200);
    const read = (await h().request({ method: 'GET', url: `/${env.envId}/f1b/${tenant}_1/linkedSources`, key: env.envKey })).json()[0];
    expect(read).toMatchObject({ tenant_id: `${tenant}_1`, symlink: { tenant }, config: { api_key: '********' } });
  });

  it('lets a v2 connector share a v1 source\'s credentials (symlink type "source")', async () => {
    const { env, tenant } = await setup();
    const url = `/v2/${env.envId}/f2/${tenant}/linkedConnectors`;
    const res = await h().request({ method: 'POST', url, key: env.envKey, body: { connector: { id: 'sample', symlink: { id: 'f1', entity: 'tap-sample', type: 'source' } } } });
    expect(res.statusCode).toBe(200);
    const read = (await h().request({ method: 'GET', url: `${url}?config=true`, key: env.envKey })).json()[0];
    expect(read.config).toMatchObject({ api_key: 'sk-live-123' });
  });

  it('GET /entity/{env}/{tenant}/linked lists reusable links (also the parent\'s); an item sent back as symlink links', async () => {
    const { env, tenant } = await setup();
    const own = await h().request({ method: 'GET', url: `/entity/${env.envId}/${tenant}/linked?entity=tap-sample`, key: env.publicKey });
    expect(own.json()).toEqual([expect.objectContaining({ id: 'f1', name: 'Flow one', version: 1, entity: 'tap-sample', tenant, kind: 'source' })]);
    expect((await h().request({ method: 'GET', url: `/entity/${env.envId}/${tenant}/linked?entity=tap-oauth`, key: env.publicKey })).json()).toEqual([]);
    const sub = `${tenant}_2`;
    const [item] = (await h().request({ method: 'GET', url: `/entity/${env.envId}/${sub}/linked?entity=tap-sample`, key: env.publicKey })).json();
    expect(item).toMatchObject({ id: 'f1', tenant });
    const linked = await h().request({ method: 'POST', url: `/${env.envId}/f1b/${sub}/linkedSources`, key: env.publicKey, body: { source: { tap: 'tap-sample', symlink: item } } });
    expect(linked.json()).toMatchObject({ status: 'linked', symlinked: true });
    expect((await h().request({ method: 'GET', url: `/entity/${env.envId}/${tenant}/linked`, key: env.publicKey })).statusCode).toBe(400);
  });
});
