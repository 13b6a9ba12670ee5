import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore, uniqueId, type Harness } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';
import { createJob } from '../jobs/service.ts';
import { jobStorageFor } from '../jobs/storage.ts';

const TENANT_TABLES = [['tenants', 'tenant'], ['links', 'tenant'], ['jobs', 'tenant'], ['queued_jobs', 'tenant_id'], ['schedules', 'tenant']] as const;

async function rowsOf(h: Harness, envId: string, tenant: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, column] of TENANT_TABLES) {
    const rows = await h.ctx.db.kysely.selectFrom(table).select(column).where('env_id', '=', envId).where(column, '=', tenant).execute();
    counts[table] = rows.length;
  }
  return counts;
}

let revokeServer: http.Server;
const revocations: Array<{ body: string; authorization: string | undefined }> = [];
beforeAll(async () => {
  revokeServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      revocations.push({ body, authorization: req.headers.authorization });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => revokeServer.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => revokeServer.close(() => resolve())));

describeEachStore('tenants', (h) => {
  async function populated() {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('t');
    const post = (url: string, body: unknown, t = tenant) => h().request({ method: 'POST', url: url.replace('{t}', t), key: env.envKey, body });
    await post(`/${env.envId}/f1/{t}/linkedSources`, { ...sampleLink(), schedule: { schedule_expression: '0 * * * *' } });
    await post(`/${env.envId}/f1b/{t}/linkedSources`, { source: { tap: 'tap-sample', symlink: { id: 'f1' } } });
    await post(`/${env.envId}/f1/{t}/linkedTargets`, { target: { target: 'target-jsonl' } });
    await post(`/v2/${env.envId}/f2/{t}/linkedConnectors`, { connector: { id: 'reader' } });
    await post(`/${env.envId}/f1/{t}/linkedSources`, sampleLink(), `${tenant}_1`);
    const scope = systemTenantScope(env.envId, tenant);
    const job = await createJob(h().ctx, scope, 'f1', { tap: 'tap-sample' }, { scheduled: false, startedBy: 'test' });
    await createJob(h().ctx, scope, 'f1', { tap: 'tap-sample', queue_if_active_job: true }, { scheduled: false, startedBy: 'test', overlap: 'queue' });
    if (job.kind !== 'job') throw new Error('expected a job');
    const storage = jobStorageFor(h().ctx, scope);
    await storage.put(`${job.job.s3_root}/sync-output/contacts.jsonl`, '{}\n');
    await storage.put(`${tenant}/stray/file.txt`, 'x');
    return { env, tenant };
  }

  it('deletes every row and file of the tenant, table by table, and nothing of others', async () => {
    const { env, tenant } = await populated();
    const other = await h().createEnv();
    await jobStorageFor(h().ctx, systemTenantScope(other.envId, tenant)).put(`${tenant}/keep.txt`, 'same tenant id, other environment');
    const before = await rowsOf(h(), env.envId, tenant);
    expect(before).toEqual({ tenants: 1, links: 4, jobs: 1, queued_jobs: 1, schedules: 1 });
    const res = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key: env.envKey });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'deleted', env_id: env.envId, tenant,
      removed: { tenant: true, links: 4, schedules: 1, jobs: 1, queued_jobs: 1, job_files: expect.any(Number) },
    });
    expect(res.json().removed.job_files).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(h(), env.envId, tenant)).toEqual({ tenants: 0, links: 0, jobs: 0, queued_jobs: 0, schedules: 0 });
    expect(await jobStorageFor(h().ctx, systemTenantScope(env.envId, tenant)).list(tenant)).toEqual([]);
    expect((await rowsOf(h(), env.envId, `${tenant}_1`)).links).toBe(1);
    expect(await jobStorageFor(h().ctx, systemTenantScope(other.envId, tenant)).list(tenant)).toEqual([`${tenant}/keep.txt`]);
  });

  it('is idempotent', async () => {
    const { env, tenant } = await populated();
    await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key: env.envKey });
    const again = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key: env.envKey });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'not_found', removed: { tenant: false, links: 0, schedules: 0, jobs: 0, queued_jobs: 0, job_files: 0 } });
  });

  it('needs force=true for the default tenant', async () => {
    const env = await envWithCatalog(h());
    await h().request({ method: 'POST', url: `/${env.envId}/f1/default/linkedSources`, key: env.envKey, body: sampleLink() });
    const refused = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/default`, key: env.envKey });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().Message).toMatch(/force=true/);
    const forced = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/default?force=true`, key: env.envKey });
    expect(forced.json()).toMatchObject({ status: 'deleted', removed: { links: 1 } });
  });

  it('revokes OAuth tokens at the provider when asked (RFC 7009), reporting each attempt', async () => {
    const env = await envWithCatalog(h());
    const port = (revokeServer.address() as AddressInfo).port;
    const entry = (await h().request({ method: 'GET', url: `/admin/environments/${env.envId}/availableSources/tap-oauth`, key: env.envKey })).json();
    await h().request({ method: 'PUT', url: `/admin/environments/${env.envId}/availableSources/tap-oauth`, key: env.envKey, body: { ...entry, revoke_url: `http://127.0.0.1:${port}/revoke` } });
    const tenant = uniqueId('t');
    await h().request({ method: 'POST', url: `/${env.envId}/f1/${tenant}/linkedSources`, key: env.envKey, body: { source: { tap: 'tap-oauth', config: { refresh_token: 'rt-secret-1', access_token: 'at-1' } } } });
    revocations.length = 0;
    const res = await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}?revoke_oauth=true`, key: env.envKey });
    expect(res.json().revoked_oauth).toEqual([{ flow_id: 'f1', kind: 'source', name: 'tap-oauth', ok: true, status: 200 }]);
    expect(revocations).toHaveLength(1);
    expect(new URLSearchParams(revocations[0]?.body).get('token')).toBe('rt-secret-1');
    expect(new URLSearchParams(revocations[0]?.body).get('token_type_hint')).toBe('refresh_token');
    expect(revocations[0]?.authorization).toBe(`Basic ${Buffer.from('cid-123:super-client-secret').toString('base64')}`);
    expect(res.body).not.toContain('rt-secret-1');
  });

  it('lists tenants with their flows, filtered by prefix and paginated', async () => {
    const { env, tenant } = await populated();
    const res = await h().request({ method: 'GET', url: `/tenants/${env.envId}?tenant=${tenant}`, key: env.envKey });
    expect(res.json()).toEqual({
      tenants: [
        { tenant_id: tenant, created_at: expect.any(String), flows: ['f1', 'f1b', 'f2'] },
        { tenant_id: `${tenant}_1`, created_at: expect.any(String), flows: ['f1'] },
      ],
      page: 1, count: 50, total: 2,
    });
    const page2 = await h().request({ method: 'GET', url: `/tenants/${env.envId}?tenant=${tenant}&count=1&page=2`, key: env.envKey });
    expect(page2.json()).toMatchObject({ tenants: [{ tenant_id: `${tenant}_1` }], page: 2, count: 1, total: 2 });
  });
});
