import { expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { envWithCatalog } from './testing.ts';

describeEachStore('catalog: public reads', (h) => {
  it('lists available sources in the shape of the API description, without secrets or run specs', async () => {
    const env = await envWithCatalog(h());
    const res = await h().request({ method: 'GET', url: `/${env.envId}/availableSources`, key: env.publicKey });
    expect(res.statusCode).toBe(200);
    const [oauth, sample] = res.json();
    expect(sample).toEqual({
      tap: 'tap-sample', tags: ['crm'], domain: 'example.com', label: 'Sample', type: 'api', icon: 'https://example.com/i.png',
      auto_support: true, connect_ui_params: expect.any(Object), config: { start_date: '2024-01-01T00:00:00Z' },
      fieldMap: { contacts: { name: 'Contact', selected: ['id', 'email'] } },
    });
    expect(oauth).toMatchObject({ tap: 'tap-oauth', type: 'oauth', tap_url: 'https://auth.example.com/authorize', client_id: 'cid-123' });
    expect(res.body).not.toContain('super-client-secret');
    expect(res.body).not.toContain('builtin');
    expect(res.body).not.toContain('/usr/bin/tap-oauth');
  });

  it('lists available targets and v2 connectors', async () => {
    const env = await envWithCatalog(h());
    const targets = await h().request({ method: 'GET', url: `/${env.envId}/availableTargets`, key: env.publicKey });
    expect(targets.json()).toEqual([expect.objectContaining({ target: 'target-jsonl', label: 'JSONL' })]);
    const connectors = await h().request({ method: 'GET', url: `/v2/${env.envId}/availableConnectors`, key: env.publicKey });
    expect(connectors.json().map((c: { id: string; job_types: string[] }) => [c.id, c.job_types])).toEqual([['reader', ['read']], ['sample', ['read', 'write']]]);
  });

  it('answers supported flows as an array with the documented members', async () => {
    const env = await envWithCatalog(h());
    const res = await h().request({ method: 'GET', url: `/${env.envId}/flows/supported`, key: env.publicKey });
    expect(res.statusCode).toBe(200);
    const flows = res.json();
    expect(flows.map((f: { id: string }) => f.id)).toEqual(['f1', 'f1b', 'f2']);
    expect(flows[0]).toEqual({
      id: 'f1', name: 'Flow one', description: '', version: 1, type: null, flowIcon: null,
      taps: ['tap-sample', 'tap-oauth'], targets: ['target-jsonl'],
      widgetOptions: { allowRunJobs: true, allowRunWriteJobs: false, allowFullSyncJobs: true, allowSyncSchedule: true },
    });
    expect(flows[2]).toMatchObject({ id: 'f2', version: 2, connectors: ['sample', 'reader'], widgetOptions: { allowRunWriteJobs: true } });
    expect(res.body).not.toContain('export-secret');
  });

  it('reads one flow, and 404s an unknown one', async () => {
    const env = await envWithCatalog(h());
    const one = await h().request({ method: 'GET', url: `/${env.envId}/flows/f2/supported`, key: env.publicKey });
    expect(one.json()).toMatchObject({ id: 'f2', version: 2 });
    const missing = await h().request({ method: 'GET', url: `/${env.envId}/flows/nope/supported`, key: env.publicKey });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ Code: 'NotFoundError', Message: expect.stringContaining('"nope"') });
  });

  it('lists what a flow offers, checking the flow version', async () => {
    const env = await envWithCatalog(h());
    const sources = await h().request({ method: 'GET', url: `/${env.envId}/f1/supportedSources`, key: env.publicKey });
    expect(sources.json().map((s: { tap: string }) => s.tap)).toEqual(['tap-sample', 'tap-oauth']);
    expect(sources.body).not.toContain('super-client-secret');
    const targets = await h().request({ method: 'GET', url: `/${env.envId}/f1/supportedTargets`, key: env.publicKey });
    expect(targets.json().map((s: { target: string }) => s.target)).toEqual(['target-jsonl']);
    const connectors = await h().request({ method: 'GET', url: `/v2/${env.envId}/f2/supportedConnectors`, key: env.publicKey });
    expect(connectors.json().map((s: { id: string }) => s.id)).toEqual(['sample', 'reader']);
    const wrong = await h().request({ method: 'GET', url: `/v2/${env.envId}/f1/supportedConnectors`, key: env.publicKey });
    expect(wrong.statusCode).toBe(400);
    const wrong2 = await h().request({ method: 'GET', url: `/${env.envId}/f2/supportedSources`, key: env.publicKey });
    expect(wrong2.statusCode).toBe(400);
    const unknown = await h().request({ method: 'GET', url: `/${env.envId}/nope/supportedSources`, key: env.publicKey });
    expect(unknown.statusCode).toBe(404);
  });

  it('answers preferences with a default primary color and widget feature flags, and keeps set ones', async () => {
    const env = await envWithCatalog(h());
    const flags = { jobsEnabled: true, writeJobsEnabled: true, fullSyncJobs: true, fieldMapsEnabled: true, scheduleEnabled: true, jobHistoryEnabled: true };
    const first = await h().request({ method: 'GET', url: `/${env.envId}/preferences`, key: env.publicKey });
    expect(first.json()).toEqual({ ...flags, uiPreferences: { primaryColor: '#1e88e5' } });
    const set = { uiPreferences: { fontFamily: 'Inter' }, logo: 'x.png', scheduleEnabled: false, jobsEnabled: null };
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { preferences: set } });
    const second = await h().request({ method: 'GET', url: `/${env.envId}/preferences`, key: env.publicKey });
    expect(second.json()).toEqual({ ...flags, scheduleEnabled: false, logo: 'x.png', uiPreferences: { fontFamily: 'Inter', primaryColor: '#1e88e5' } });
  });

  it('refuses another environment\'s key', async () => {
    const env = await envWithCatalog(h());
    const other = await h().createEnv();
    const res = await h().request({ method: 'GET', url: `/${env.envId}/availableSources`, key: other.publicKey });
    expect(res.statusCode).toBe(403);
  });
});
