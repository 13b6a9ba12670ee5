import { expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore, uniqueId, type TestEnv } from '../../test/harness.ts';
import { envWithCatalog } from '../catalog/testing.ts';
import { LOST_MESSAGE } from './discovery.ts';
import { runningDiscoveries, stopDiscoveries } from './discovery-run.ts';
import { resolveJobPlan } from './job-plan.ts';

/** A tap that discovers after `delay_ms`, or fails printing its api_key on stderr with `fail: true`. */
const DISCOVER_TAP = {
  command: process.execPath,
  args: ['-e', `
    const a = process.argv; const c = JSON.parse(require('fs').readFileSync(a[a.indexOf('--config') + 1], 'utf8'));
    if (c.fail) { process.stderr.write('discover failed for ' + c.api_key + '\\n'); process.exit(3); }
    setTimeout(() => process.stdout.write(JSON.stringify({ streams: [{ stream: 'items', tap_stream_id: 'items',
      schema: { properties: { id: { type: 'integer' } } }, metadata: [] }] })), c.delay_ms || 0);`, '--'],
};

const CATALOG = {
  availableSources: [
    { tap: 'tap-sample', run: { builtin: 'tap-sample' } },
    { tap: 'tap-disc', run: DISCOVER_TAP },
    { tap: 'tap-manual', run: { builtin: 'tap-sample' }, discover_on_link: false },
  ],
  availableConnectors: [
    { id: 'sample', read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' } },
    { id: 'writer', write: { builtin: 'target-jsonl' } },
  ],
  flows: [
    { id: 'f1', taps: ['tap-sample', 'tap-disc', 'tap-manual'] },
    { id: 'f2', version: 2, connectors: ['sample', 'writer'] },
  ],
};

describeEachStore('discovery outside jobs', (h) => {
  async function setup(): Promise<TestEnv & { tenant: string }> {
    const env = await envWithCatalog(h(), CATALOG);
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_url: 'http://127.0.0.1:9/hook' } });
    return { ...env, tenant: uniqueId('t') };
  }
  const sources = (env: TestEnv & { tenant: string }) => `/${env.envId}/f1/${env.tenant}/linkedSources`;
  const connectors = (env: TestEnv & { tenant: string }) => `/v2/${env.envId}/f2/${env.tenant}/linkedConnectors`;

  async function call(env: TestEnv, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) {
    return h().request({ method, url, key: env.envKey, body });
  }

  /** Polls as the widget does until `status` is STOPPED. */
  async function settle(env: TestEnv, pollUrl: string): Promise<any> {
    for (let i = 0; i < 500; i++) {
      const res = await call(env, 'GET', pollUrl);
      expect(res.statusCode, res.body).toBe(200);
      if (res.json().status === 'STOPPED') return res.json();
      expect(res.json()).toMatchObject({ status: 'DISCOVER_STARTED', discover_status: 'DISCOVER_STARTED' });
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`discovery at ${pollUrl} did not end`);
  }

  async function discoverEvents(env: TestEnv, name: string): Promise<any[]> {
    const rows = await h().ctx.db.kysely.selectFrom('webhook_events').select(['payload', 'ordering_key'])
      .where('env_id', '=', env.envId).where('event_type', '=', 'discover.status_changed').orderBy('id').execute();
    return rows.map((r) => ({ ...JSON.parse(r.payload).data, key: r.ordering_key })).filter((d) => d.connector === name);
  }

  it('discovers right after linking: the catalog (selection from the field map) is there once the poll says STOPPED', async () => {
    const env = await setup();
    const field_map = { contacts: { name: 'people', selected: ['id'] } };
    const linked = await call(env, 'POST', sources(env), { source: { tap: 'tap-sample', config: {} }, field_map });
    expect(linked.statusCode, linked.body).toBe(200);
    const first = (await call(env, 'GET', `${sources(env)}/discover/poll?tap_name=tap-sample`)).json();
    expect(['DISCOVER_STARTED', 'DISCOVER_SUCCESS']).toContain(first.discover_status);
    const done = await settle(env, `${sources(env)}/discover/poll?tap_name=tap-sample`);
    expect(done).toMatchObject({ status: 'STOPPED', discover_status: 'DISCOVER_SUCCESS', tap: 'tap-sample', flow_id: 'f1', tenant: env.tenant, has_catalog: true });
    expect(done.message).toBeUndefined();
    const [item] = (await call(env, 'GET', `${sources(env)}?catalog=true&tap_name=tap-sample`)).json();
    expect(item.discover_task_status).toBe('DISCOVER_SUCCESS');
    const streams = Object.fromEntries(item.catalog.streams.map((s: any) => [s.stream, s]));
    const selected = (stream: string, field?: string) => streams[stream].metadata
      .find((m: any) => m.breadcrumb.join('/') === (field ? `properties/${field}` : '')).metadata.selected;
    expect([selected('contacts'), selected('contacts', 'id'), selected('contacts', 'email'), selected('deals')]).toEqual([true, true, false, false]);
    const plan = await resolveJobPlan(h().ctx, systemTenantScope(env.envId, env.tenant), 'f1', {});
    expect([plan.source.catalog !== null, plan.fieldMapChangedSinceDiscovery]).toEqual([true, false]);
    const events = await discoverEvents(env, 'tap-sample');
    expect(events.map((e) => e.status)).toEqual(['DISCOVER_STARTED', 'DISCOVER_SUCCESS']);
    expect(events[1]).toEqual({ env_id: env.envId, flow_id: 'f1', tenant: env.tenant, connector: 'tap-sample', status: 'DISCOVER_SUCCESS', message: null, job_id: null, key: `discover:f1:${env.tenant}:tap-sample` });
  });

  it('GET and POST discover start one run per link; a failure is DISCOVER_FAILED with a redacted message', async () => {
    const env = await setup();
    await call(env, 'POST', sources(env), { source: { tap: 'tap-disc', config: { delay_ms: 400, api_key: 'sk-SECRET-77' } } });
    const again = await call(env, 'GET', `${sources(env)}/discover?tap_name=tap-disc`);
    expect(again.json()).toEqual({ status: 'DISCOVER_STARTED', tap: 'tap-disc', flow_id: 'f1', tenant: env.tenant, started: false });
    await settle(env, `${sources(env)}/discover/poll?tap_name=tap-disc`);
    expect((await call(env, 'POST', `${sources(env)}/discover?tap_name=tap-disc`)).json()).toMatchObject({ started: true });
    expect((await settle(env, `${sources(env)}/discover/poll?tap_name=tap-disc`)).discover_status).toBe('DISCOVER_SUCCESS');

    await call(env, 'PATCH', sources(env), { tap: 'tap-disc', config: { fail: true } });
    expect((await call(env, 'GET', `${sources(env)}/discover?tap_name=tap-disc`)).json().started).toBe(true);
    const failed = await settle(env, `${sources(env)}/discover/poll?tap_name=tap-disc`);
    expect(failed).toMatchObject({ status: 'STOPPED', discover_status: 'DISCOVER_FAILED', has_catalog: true });
    expect(failed.message).toMatch(/exited with code 3[\s\S]*discover failed for \[REDACTED\]/);
    expect((await call(env, 'GET', `${sources(env)}?tap_name=tap-disc`)).json()[0].discover_task_status).toBe('DISCOVER_FAILED');
    const events = await discoverEvents(env, 'tap-disc');
    expect(events.map((e) => e.status)).toEqual(['DISCOVER_STARTED', 'DISCOVER_SUCCESS', 'DISCOVER_STARTED', 'DISCOVER_SUCCESS', 'DISCOVER_STARTED', 'DISCOVER_FAILED']);
    expect(JSON.stringify(events)).not.toContain('sk-SECRET-77');
  });

  it('linking again supersedes a running discovery; unlinking or stopping Tapline ends it as DISCOVER_FAILED', async () => {
    const env = await setup();
    const body = (delay_ms: number) => ({ source: { tap: 'tap-disc', config: { delay_ms } } });
    await call(env, 'POST', sources(env), body(20_000));
    await call(env, 'POST', sources(env), body(0));
    expect((await settle(env, `${sources(env)}/discover/poll?tap_name=tap-disc`)).discover_status).toBe('DISCOVER_SUCCESS');
    const ends = async () => (await discoverEvents(env, 'tap-disc')).filter((e) => e.status !== 'DISCOVER_STARTED');
    for (let i = 0; i < 200 && (await ends()).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await ends()).map((e) => [e.status, e.message]).sort()).toEqual([
      ['DISCOVER_FAILED', 'superseded by a newer discovery of this link'], ['DISCOVER_SUCCESS', null],
    ]);

    const gone = { ...env, tenant: uniqueId('t') };
    await call(gone, 'POST', sources(gone), body(20_000));
    await h().request({ method: 'DELETE', url: `${sources(gone)}?tap_name=tap-disc`, key: env.envKey });
    let last: any;
    for (let i = 0; i < 200 && last?.status !== 'DISCOVER_FAILED'; i++) {
      last = (await discoverEvents(env, 'tap-disc')).filter((e) => e.tenant === gone.tenant).at(-1);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(last).toMatchObject({ status: 'DISCOVER_FAILED', message: 'the link was removed' });

    const other = { ...env, tenant: uniqueId('t') };
    await call(other, 'POST', sources(other), body(20_000));
    expect(runningDiscoveries(h().ctx)).toBeGreaterThan(0);
    await stopDiscoveries(h().ctx);
    expect(runningDiscoveries(h().ctx)).toBe(0);
    const stopped = (await call(other, 'GET', `${sources(other)}/discover/poll?tap_name=tap-disc`)).json();
    expect(stopped).toMatchObject({ status: 'STOPPED', discover_status: 'DISCOVER_FAILED', message: 'stopped: Tapline is stopping' });
  });

  it('a discovery whose process died is lost, and a new one takes over', async () => {
    const env = await setup();
    await call(env, 'POST', sources(env), { source: { tap: 'tap-manual', config: {} } });
    const poll = `${sources(env)}/discover/poll?tap_name=tap-manual`;
    expect((await call(env, 'GET', poll)).json()).toMatchObject({ status: 'STOPPED', discover_status: null, has_catalog: false, started_at: null });
    const long = Date.now() - 10 * 60_000;
    await h().ctx.db.kysely.updateTable('links')
      .set({ discover_status: 'DISCOVER_STARTED', discover_token: 'dead', discover_started_at: long, discover_heartbeat_at: long })
      .where('env_id', '=', env.envId).where('tenant', '=', env.tenant).execute();
    expect((await call(env, 'GET', poll)).json()).toMatchObject({ status: 'STOPPED', discover_status: 'DISCOVER_FAILED', message: LOST_MESSAGE });
    expect((await call(env, 'GET', `${sources(env)}?tap_name=tap-manual`)).json()[0].discover_task_status).toBe('DISCOVER_FAILED');
    expect((await call(env, 'GET', `${sources(env)}/discover?tap_name=tap-manual`)).json().started).toBe(true);
    expect((await settle(env, poll)).discover_status).toBe('DISCOVER_SUCCESS');
  });

  it('v2 connectors: discover and poll by connector_id; errors for write-only connectors, unknown links and missing names', async () => {
    const env = await setup();
    expect((await call(env, 'POST', connectors(env), { connector: { id: 'sample', config: {} } })).statusCode).toBe(200);
    const done = await settle(env, `${connectors(env)}/discover/poll?connector_id=sample`);
    expect(done).toMatchObject({ discover_status: 'DISCOVER_SUCCESS', connector_id: 'sample' });
    expect((await call(env, 'GET', `${connectors(env)}?catalog=true&connector_id=sample`)).json()[0].catalog.streams.length).toBeGreaterThan(0);

    expect((await call(env, 'POST', connectors(env), { connector: { id: 'writer', config: {} } })).statusCode).toBe(200);
    expect((await call(env, 'GET', `${connectors(env)}/discover/poll?connector_id=writer`)).json()).toMatchObject({ status: 'STOPPED', discover_status: null });
    const writeOnly = await call(env, 'GET', `${connectors(env)}/discover?connector_id=writer`);
    expect([writeOnly.statusCode, writeOnly.json().Message]).toEqual([400, 'The connector "writer" cannot read data, so it has nothing to discover']);
    expect((await call(env, 'GET', `${sources(env)}/discover?tap_name=tap-sample`)).statusCode).toBe(404);
    expect((await call(env, 'GET', `${sources(env)}/discover/poll?tap_name=tap-sample`)).statusCode).toBe(404);
    expect((await call(env, 'GET', `${sources(env)}/discover`)).statusCode).toBe(400);
    expect((await call(env, 'GET', `/${env.envId}/f2/${env.tenant}/linkedSources/discover?tap_name=x`)).statusCode).toBe(400);
    // The widget calls it with the public key and no token.
    const widget = await h().request({ method: 'GET', url: `${connectors(env)}/discover?connector_id=sample`, key: env.publicKey });
    expect(widget.statusCode, widget.body).toBe(200);
    await settle(env, `${connectors(env)}/discover/poll?connector_id=sample`);
  });
});
