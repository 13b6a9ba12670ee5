// Replays the HTTP calls of the unchanged `@hotglue/widget` 1.4.63 embed against a real
// Tapline (real HTTP server, real fetch, a CORS preflight before every call, the
// widget's exact paths, query strings, headers and bodies) and checks the members the
// widget reads. docs/widget-compat.md lists the calls; "GAP-n" tests are `it.fails`
// until the gap is closed (then they fail: turn them into `it`).
import crypto from 'node:crypto';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJobWorker, type JobWorker } from '../src/jobs/index.ts';
import { describeEachStore, type Harness, type TestEnv } from './harness.ts';

const ORIGIN = 'https://app.example.com';
/** Every widget DELETE carries `Content-Type: application/json` and no body (GAP-10, fixed). */
const gap10 = (name: string, fn: () => Promise<void>) => it(`DELETE with an empty JSON body: ${name}`, fn);
const TERMINAL = (status: string) => status.includes('FAILED') || status.includes('COMPLETE');
type Json = any; // the widget reads untyped JSON
type Form = 'env' | 'v2' | 'plain';
interface Answer { status: number; body: Json }

/** The widget's `mo` (env), `ho` (v2) and `{env: false}` (plain) request helpers, plus the browser's CORS steps. */
function widgetClient(apiUrl: string, envId: string, apiKey: string) {
  const urlOf = (form: Form, p: string) => (form === 'plain' ? `${apiUrl}/${p}` : `${apiUrl}${form === 'v2' ? '/v2' : ''}/${envId}/${p}`);
  async function preflight(method: string, url: string): Promise<void> {
    const res = await fetch(url, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type,x-api-key' },
    });
    const list = (h: string) => (res.headers.get(h) ?? '').toLowerCase().split(',').map((s) => s.trim());
    expect(res.status, `preflight ${method} ${url}`).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin'), `preflight ${method} ${url}`).toBe(ORIGIN);
    expect(list('access-control-allow-methods')).toContain(method.toLowerCase());
    expect(list('access-control-allow-headers')).toEqual(expect.arrayContaining(['content-type', 'x-api-key']));
  }
  async function send(method: string, form: Form, p: string, body?: unknown): Promise<Answer> {
    const url = urlOf(form, p);
    await preflight(method, url);
    const res = await fetch(url, {
      method,
      headers: { Origin: ORIGIN, 'x-api-key': apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.headers.get('access-control-allow-origin'), `${method} ${p}`).toBe(ORIGIN);
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      throw new Error(`${method} ${p} → ${res.status}: the widget parses every body as JSON, got ${JSON.stringify(text.slice(0, 200))}`);
    }
  }
  /** Success for the widget is status 200 exactly; anything else rejects with `Message`. */
  async function ok(method: string, form: Form, p: string, body?: unknown): Promise<Json> {
    const answer = await send(method, form, p, body);
    if (answer.status !== 200) throw new Error(`${method} ${p} → ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
  return { send, ok };
}

/** A failure the widget can show: JSON `{Code, Message}`. */
function expectReadableError(answer: Answer): void {
  if (answer.status === 200) return;
  expect(answer.status).toBeLessThan(500);
  expect(answer.body).toMatchObject({ Code: expect.any(String), Message: expect.any(String) });
}

const PARAMS = {
  api_key: { label: 'API key', description: 'Any text', type: 'password' },
  record_count: { label: 'Records per stream', description: 'default 100', required: false },
};

function catalogDocument(outDir: string) {
  return {
    availableSources: [{ tap: 'tap-sample', label: 'Sample CRM', domain: 'example.com', type: 'api', connect_ui_params: PARAMS, config: { start_date: '2024-01-01T00:00:00Z' }, run: { builtin: 'tap-sample' } }],
    availableTargets: [{ target: 'target-jsonl', label: 'JSON Lines', type: 'api', run: { builtin: 'target-jsonl' } }],
    availableConnectors: [{ id: 'sample', label: 'Sample CRM', domain: 'example.com', type: 'api', connect_ui_params: PARAMS, read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' } }],
    flows: [
      { id: 'crm', name: 'CRM', description: 'Sync your CRM', version: 1, taps: ['tap-sample'], export: { target: 'target-jsonl', config: { destination_path: outDir } } },
      { id: 'crm2', name: 'CRM v2', description: 'Sync your CRM (v2)', version: 2, connectors: ['sample'], export: { read: { connector: 'sample', config: { destination_path: outDir } } } },
    ],
  };
}

/** What the widget puts in `job_name`: `{flow}-{tap}-YYMMDD-HHmmss`. */
function jobName(flow: string, tap?: string): string {
  const stamp = new Date().toISOString().replace(/^\d\d(\d\d)-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d).*$/, '$1$2$3-$4$5$6');
  return [flow, tap, stamp].filter(Boolean).join('-');
}

async function tenantToken(h: Harness, env: TestEnv, tenant: string): Promise<string> {
  const res = await h.request({ method: 'POST', url: `/admin/environments/${env.envId}/signing-key`, key: env.envKey });
  const key = crypto.createPrivateKey(Buffer.from(res.json().private_key, 'base64').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: tenant, iat: now, exp: now + 3600 }).setProtectedHeader({ alg: 'RS256' }).sign(key);
}

describeEachStore('@hotglue/widget 1.4.63 against Tapline', (h) => {
  const T = 'acme-1';
  let env: TestEnv;
  let w: ReturnType<typeof widgetClient>;
  let token: string;
  let worker: JobWorker;
  const supported: Record<string, Json> = {};
  let t: string; // the widget's `token` query for linkedConnectors (URLSearchParams)

  /** Polls jobs/status as the widget does (it waits 15 s between polls) until a FAILED/COMPLETE status. */
  async function pollJob(form: Form, flow: string, tenant: string, root: string): Promise<Json> {
    expect(root.split('/')[0], 'the widget only polls jobs whose s3_root starts with the tenant').toBe(tenant);
    for (let i = 0; i < 300; i++) {
      const job = await w.ok('GET', 'env', `${flow}/${tenant}/jobs/status?${new URLSearchParams({ job_root: root })}`);
      expect(job).toMatchObject({ status: expect.any(String), flow_id: flow });
      if (TERMINAL(job.status)) return job;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`job ${root} did not finish (${form})`);
  }

  /** The widget's discovery poll: every second until `status` is absent or STOPPED/STOPPING/DEPROVISIONING. */
  async function pollDiscovery(form: Form, p: string): Promise<Json> {
    for (let i = 0; i < 500; i++) {
      const answer = await w.ok('GET', form, p);
      if (answer.status == null || ['STOPPED', 'STOPPING', 'DEPROVISIONING'].includes(answer.status)) return answer;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`discovery ${p} did not end`);
  }

  beforeAll(async () => {
    env = await h().createEnv('widget');
    const admin = (method: 'PATCH' | 'PUT', url: string, body: unknown) => h().request({ method, url, key: env.envKey, body });
    // No preferences stored: the widget's feature flags default to true (GAP-5).
    expect((await admin('PATCH', `/admin/environments/${env.envId}`, { cors_origins: [ORIGIN] })).statusCode).toBe(200);
    const catalog = await admin('PUT', `/admin/environments/${env.envId}/catalog`, catalogDocument(path.join(h().dataDir, 'out')));
    expect(catalog.statusCode, catalog.body).toBe(200);
    const address = await h().app.listen({ port: 0, host: '127.0.0.1' });
    w = widgetClient(address, env.envId, env.publicKey);
    token = await tenantToken(h(), env, T);
    t = new URLSearchParams({ token }).toString();
    worker = startJobWorker(h().ctx, { envIds: [env.envId], pollMs: 50 });
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('mount: preferences, supported flows, and what every flow offers', async () => {
    const prefs = await w.ok('GET', 'env', 'preferences');
    expect(prefs.uiPreferences).toMatchObject({ primaryColor: expect.any(String) });
    expect(prefs).toMatchObject({ jobsEnabled: true, writeJobsEnabled: true, scheduleEnabled: true, fieldMapsEnabled: true, fullSyncJobs: true, jobHistoryEnabled: true });
    const flows: Json[] = await w.ok('GET', 'env', 'flows/supported');
    expect(flows.map((f) => f.id).sort()).toEqual(['crm', 'crm2']);
    for (const flow of flows) expect(flow).toMatchObject({ id: expect.any(String), name: expect.any(String), description: expect.any(String) });
    expect(flows.find((f) => f.id === 'crm2').version).toBe(2);
    for (const flow of flows) {
      // The widget asks every flow for sources and targets (v2 flows too); a failure only leaves the list empty.
      for (const p of [`${flow.id}/supportedSources?`, `${flow.id}/supportedTargets`]) expectReadableError(await w.send('GET', 'env', p));
    }
    supported.source = (await w.ok('GET', 'env', 'crm/supportedSources?')).find((s: Json) => s.tap === 'tap-sample');
    expect(supported.source).toMatchObject({ tap: 'tap-sample', label: 'Sample CRM', type: 'api', domain: 'example.com', connect_ui_params: { api_key: { label: 'API key' } } });
    expect(await w.ok('GET', 'env', 'crm/supportedTargets')).toEqual(expect.any(Array));
    supported.connector = (await w.ok('GET', 'v2', 'crm2/supportedConnectors')).find((c: Json) => c.id === 'sample');
    expect(supported.connector).toMatchObject({ id: 'sample', label: 'Sample CRM', type: 'api', connect_ui_params: expect.any(Object) });
  });

  it('open: linked flows and linked sources of the tenant (jwtToken option set)', async () => {
    expect(await w.ok('GET', 'env', `flows/linked?user_id=${T}&token=${token}`)).toEqual([]);
    expect(await w.ok('GET', 'env', `crm/${T}/linkedSources?config=true&login_state=true&token=${token}`)).toEqual([]);
  });

  it('link: POST the supported-source object with the connect form config, then refresh', async () => {
    const { tenant_id: _ignored, ...entity } = { ...supported.source, entityType: 'source' };
    const linked = await w.ok('POST', 'env', `crm/${T}/linkedSources?token=${token}`, { source: { ...entity, config: { api_key: 'k-123', record_count: 5 } } });
    expect(linked).toEqual(expect.any(Object));
    const items: Json[] = await w.ok('GET', 'env', `crm/${T}/linkedSources?config=true&login_state=true&token=${token}`);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ tap: 'tap-sample', tenant_id: T, label: 'Sample CRM', type: 'api', disconnected: false, isReconnecting: false, config: { record_count: 5 } });
    expect(items[0].error).toBeUndefined();
    const flows: Json[] = await w.ok('GET', 'env', `flows/linked?user_id=${T}&token=${token}`);
    expect(flows.map((f) => f.id)).toEqual(['crm']);
    expect(flows[0]).toMatchObject({ name: 'CRM', version: 1 });
    expectReadableError(await w.send('GET', 'env', `crm/${T}/jobs/latest?entity_id=tap-sample&entity_type=source`));
  });

  it('GAP-2: soon after linking, the field map has a catalog (the widget waits on discover/poll while `discover_task_status` is DISCOVER_STARTED)', async () => {
    const read = async () => (await w.ok('GET', 'env', `crm/${T}/linkedSources?config=true&login_state=true&tap_name=tap-sample&catalog=true&token=${token}`))[0];
    const first = await read();
    expect(first.catalog !== null || first.discover_task_status === 'DISCOVER_STARTED').toBe(true);
    await pollDiscovery('env', `crm/${T}/linkedSources/discover/poll?tap_name=tap-sample`);
    const item = await read();
    expect(item.discover_task_status).toBe('DISCOVER_SUCCESS');
    expect(item.catalog).toMatchObject({ streams: expect.any(Array) });
    for (const s of item.catalog.streams) expect(s).toMatchObject({ stream: expect.any(String), schema: { properties: expect.any(Object) }, metadata: expect.any(Array) });
  });

  gap10('"Full sync" first clears the state: DELETE linkedSources/state?tap_name=', async () => {
    expect(await w.ok('DELETE', 'env', `crm/${T}/linkedSources/state?tap_name=tap-sample`)).toEqual(expect.any(Object));
  });

  it('run a job, poll it, read the latest job and the job history', async () => {
    const job = await w.ok('POST', 'env', `crm/${T}/jobs`, { job: { job_name: jobName('crm', 'tap-sample') }, tap: 'tap-sample' });
    expect(job).toMatchObject({ job_id: expect.any(String), s3_root: expect.stringMatching(new RegExp(`^${T}/`)) });
    expect((await pollJob('env', 'crm', T, job.s3_root)).status).toBe('JOB_COMPLETED');
    const latest = await w.ok('GET', 'env', `crm/${T}/jobs/latest?entity_id=tap-sample&entity_type=source`);
    expect(latest).toMatchObject({ flow_id: 'crm', s3_root: job.s3_root, status: 'JOB_COMPLETED', tap: 'tap-sample' });
    expect(await w.ok('GET', 'env', `crm/${T}/jobs/latest?`)).toMatchObject({ flow_id: 'crm' });
    const history: Json[] = await w.ok('GET', 'env', `crm/${T}/jobs?entity_id=tap-sample&entity_type=source`);
    expect(history[0]).toMatchObject({ job_id: job.job_id, status: 'JOB_COMPLETED', start_time: expect.any(String) });
    expect(Number.isNaN(Date.parse(history[0].start_time))).toBe(false);
  });

  it('createJob hook: a job with only a job name runs the linked source', async () => {
    const job = await w.ok('POST', 'env', `crm/${T}/jobs`, { job: { job_name: jobName('crm') } });
    expect((await pollJob('env', 'crm', T, job.s3_root)).status).toBe('JOB_COMPLETED');
  });

  it('schedule panel: save daily, weekly, monthly; read back', async () => {
    const base = `crm/${T}/jobs/schedule`;
    for (const cron of ['0 9 * * 1,3', '0 9 15 * *', '30 14 * * *']) {
      expect(await w.ok('PUT', 'env', base, { state: 'ENABLED', schedule_expression: cron })).toEqual(expect.any(Object));
    }
    const schedule = await w.ok('GET', 'env', base);
    expect(schedule.State).toBe('ENABLED');
    expect(String(schedule.ScheduleExpression).match(/^(cron\()?([^)]*)\)?/)?.[2]).toBe('30 14 * * *');
  });

  gap10('clear the schedule: DELETE jobs/schedule', async () => {
    expect(await w.ok('DELETE', 'env', `crm/${T}/jobs/schedule`)).toEqual(expect.any(Object));
  });

  it('field map: read the link with its catalog, save a selection, read it back', async () => {
    const read = async () => (await w.ok('GET', 'env', `crm/${T}/linkedSources?config=true&login_state=true&tap_name=tap-sample&catalog=true&token=${token}`))[0];
    const { catalog } = await read();
    expect(catalog.streams.length).toBeGreaterThan(0);
    for (const s of catalog.streams) expect(s).toMatchObject({ stream: expect.any(String), schema: { properties: expect.any(Object) }, metadata: expect.any(Array) });
    const field_map = { contacts: { name: 'contacts', selected: ['*'] } };
    expect(await w.ok('PATCH', 'env', `crm/${T}/linkedSources`, { field_map, tap: 'tap-sample' })).toEqual(expect.any(Object));
    expect((await read()).fieldMap).toMatchObject(field_map);
  });

  it('an error the widget shows: JSON {Code, Message} with CORS headers', async () => {
    const answer = await w.send('POST', 'env', `crm/${T}/linkedSources?token=${token}`, { source: { tap: 'no-such-tap', config: {} } });
    expect(answer.status).toBe(400);
    expectReadableError(answer);
  });

  gap10('disconnect: DELETE linkedSources?tap_name, then refresh', async () => {
    expect(await w.ok('DELETE', 'env', `crm/${T}/linkedSources?tap_name=tap-sample&token=${token}`)).toEqual(expect.any(Object));
    expect(await w.ok('GET', 'env', `crm/${T}/linkedSources?config=true&login_state=true&token=${token}`)).toEqual([]);
    expect(await w.ok('GET', 'env', `flows/linked?user_id=${T}&token=${token}`)).toEqual([]);
    expect(await w.ok('GET', 'env', 'flows/supported')).toHaveLength(2);
  });

  it('v2: link a connector, run a read job, save a field map', async () => {
    const { tenant_id: _ignored, ...entity } = { ...supported.connector, entityType: 'connector' };
    expect(await w.ok('POST', 'v2', `crm2/${T}/linkedConnectors?${t}`, { connector: { ...entity, config: { api_key: 'k-456', record_count: 3 } } })).toEqual(expect.any(Object));
    const items: Json[] = await w.ok('GET', 'v2', `crm2/${T}/linkedConnectors?config=true&${t}`);
    expect(items[0]).toMatchObject({ id: 'sample', tenant_id: T, label: 'Sample CRM', disconnected: false });
    const job = await w.ok('POST', 'v2', `crm2/${T}/jobs`, { job: { job_name: jobName('crm2', 'sample') }, job_type: 'read', connector_id: 'sample' });
    expect(job).toMatchObject({ job_id: expect.any(String), s3_root: expect.stringMatching(new RegExp(`^${T}/`)) });
    expect((await pollJob('v2', 'crm2', T, job.s3_root)).status).toBe('JOB_COMPLETED');
    const field_map = { deals: { name: 'deals', selected: ['*'] } };
    expect(await w.ok('PATCH', 'v2', `crm2/${T}/linkedConnectors?${t}`, { field_map, connector_id: 'sample' })).toEqual(expect.any(Object));
    const withCatalog: Json[] = await w.ok('GET', 'v2', `crm2/${T}/linkedConnectors?config=true&connector_id=sample&catalog=true&${t}`);
    expect(withCatalog[0].fieldMap).toMatchObject(field_map);
  });

  gap10('v2 "Full sync" and unlink: DELETE linkedConnectors/state?connector_id=, DELETE linkedConnectors?connector_id=', async () => {
    expect(await w.ok('DELETE', 'v2', `crm2/${T}/linkedConnectors/state?connector_id=sample`)).toEqual(expect.any(Object));
    expect(await w.ok('DELETE', 'v2', `crm2/${T}/linkedConnectors?${new URLSearchParams({ connector_id: 'sample', token })}`)).toEqual(expect.any(Object));
    expect(await w.ok('GET', 'v2', `crm2/${T}/linkedConnectors?config=true&${t}`)).toEqual([]);
  });

  it('hook helpers: available sources, targets and connectors', async () => {
    expect((await w.ok('GET', 'env', 'availableSources')).map((s: Json) => s.tap)).toEqual(['tap-sample']);
    expect((await w.ok('GET', 'env', 'availableTargets')).map((s: Json) => s.target)).toEqual(['target-jsonl']);
    expect((await w.ok('GET', 'plain', `v2/${env.envId}/availableConnectors`)).map((s: Json) => s.id)).toEqual(['sample']);
  });

  // Known gaps (docs/widget-compat.md). Each asserts what the widget needs.
  it('a v1 source flow has no truthy `type` (the widget takes such flows for target flows)', async () => {
    const flows: Json[] = await w.ok('GET', 'env', 'flows/supported');
    for (const flow of flows) expect(flow.type ?? null, flow.id).toBeFalsy();
  });

  it('GET /entity/{env}/{tenant}/linked?entity= (called before every link) answers an array', async () => {
    expect(await w.ok('GET', 'plain', `entity/${env.envId}/${T}/linked?entity=tap-sample`)).toEqual(expect.any(Array));
  });

  it('GAP-2: the field-map page polls linkedSources/discover/poll; "Refresh" calls linkedSources/discover (v2: linkedConnectors)', async () => {
    const { tenant_id: _ignored, ...entity } = { ...supported.source, entityType: 'source' };
    await w.ok('POST', 'env', `crm/${T}/linkedSources?token=${token}`, { source: { ...entity, config: { api_key: 'k-123', record_count: 5 } } });
    await pollDiscovery('env', `crm/${T}/linkedSources/discover/poll?tap_name=tap-sample`);
    expect(await w.ok('GET', 'env', `crm/${T}/linkedSources/discover?tap_name=tap-sample`)).toMatchObject({ status: 'DISCOVER_STARTED', started: true });
    expect((await pollDiscovery('env', `crm/${T}/linkedSources/discover/poll?tap_name=tap-sample`)).discover_status).toBe('DISCOVER_SUCCESS');
    const { tenant_id: _alsoIgnored, ...connector } = { ...supported.connector, entityType: 'connector' };
    await w.ok('POST', 'v2', `crm2/${T}/linkedConnectors?${t}`, { connector: { ...connector, config: { api_key: 'k-456' } } });
    await pollDiscovery('v2', `crm2/${T}/linkedConnectors/discover/poll?connector_id=sample`);
    expect(await w.ok('GET', 'v2', `crm2/${T}/linkedConnectors/discover?connector_id=sample`)).toMatchObject({ status: 'DISCOVER_STARTED' });
    expect((await pollDiscovery('v2', `crm2/${T}/linkedConnectors/discover/poll?connector_id=sample`)).discover_status).toBe('DISCOVER_SUCCESS');
  });

  it('the default embed (no jwtToken) lists links with config=true', async () => {
    expect(await w.ok('GET', 'env', `crm/other-tenant/linkedSources?config=true&login_state=true`)).toEqual([]);
  });

  it('GAP-4 (fixed): the schedule panel reads a tenant without a schedule', async () => {
    const schedule = await w.ok('GET', 'env', 'crm/other-tenant/jobs/schedule');
    expect(schedule.State).toBe('DISABLED');
  });
}, { config: { corsOrigins: [] } });
