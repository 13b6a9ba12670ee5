import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import {
  eventPath, filesBelow, jobDir, linkSource, readJsonl, runJob, statusPath, storedState, waitForJob, type JobEnv,
  startWorkingJobEnv,
} from './testing.ts';
import type { JobWorker } from './worker.ts';

const FIELD_MAP = { contacts: { name: 'people', selected: ['id', 'email'] } };

describeEachStore('jobs: a real Singer job end to end', (h) => {
  let env: JobEnv;
  let worker: JobWorker;
  beforeAll(async () => {
    ({ env, worker } = await startWorkingJobEnv(h()));
  });
  afterAll(async () => worker?.stop());

  it('runs discover → sync → ETL → export to JOB_COMPLETED and commits the state', async () => {
    await linkSource(h(), env, 'f1', 'acme', 'tap-sample', { record_count: 30, api_key: 'sk_live_SECRET_4242' }, FIELD_MAP);
    const created = await runJob(h(), env, 'f1', 'acme', { tap: 'tap-sample' });
    expect(created).toMatchObject({
      env_id: env.envId, flow_id: 'f1', tenant: 'acme', tap: 'tap-sample', status: 'JOB_CREATED',
      scheduled_job: false, processed_rows: 0, started_by: 'environment', message: '',
    });
    expect(created.s3_root).toMatch(new RegExp(`^acme/flows/f1/jobs/\\d{4}/\\d{2}/\\d{2}/\\d{2}/${created.job_id}$`));
    expect(created.flow).toBeUndefined();

    const job = await waitForJob(h(), env, 'f1', 'acme', created.s3_root);
    expect(job).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 30, message: '' });
    expect(await eventPath(h(), created.job_id)).toEqual([
      'job:JOB_CREATED', 'job:DISCOVER_STARTED', 'discover:DISCOVER_STARTED', 'discover:DISCOVER_SUCCESS', 'job:SYNC_STARTED',
      'job:SYNC_SUCCESS', 'job:ETL_STARTED', 'job:ETL_SUCCESS', 'job:EXPORT_STARTED', 'job:JOB_COMPLETED',
    ]);
    // Field map: only contacts, renamed, with the selected fields.
    const people = readJsonl(path.join(env.out, 'people.jsonl'));
    expect(people).toHaveLength(30);
    expect(Object.keys(people[0]).sort()).toEqual(['email', 'id']);
    expect(fs.existsSync(path.join(env.out, 'deals.jsonl'))).toBe(false);
    expect(await storedState(h(), env, 'f1', 'acme')).toEqual({ bookmarks: { contacts: { updated_at: '2024-01-01T00:00:29Z' } } });

    // Job storage holds the stage outputs, catalog, state and log — never the credential.
    const dir = jobDir(h(), env, created.s3_root);
    const files = filesBelow(dir).map((f) => path.relative(dir, f)).sort();
    expect(files).toEqual(expect.arrayContaining(['catalog.json', 'state.json', 'job.log', 'sync-output/contacts.jsonl', 'etl-output/people.jsonl']));
    for (const file of filesBelow(dir)) expect(fs.readFileSync(file, 'utf8')).not.toContain('SECRET_4242');
  });

  it('lists jobs newest first in the listing form, with export details; status, latest and logs', async () => {
    const second = await runJob(h(), env, 'f1', 'acme', { job: { job_name: 'nested name' } });
    expect(second.job_name).toBe('nested name');
    await waitForJob(h(), env, 'f1', 'acme', second.s3_root);
    const list = await h().request({ method: 'GET', url: `${env.url('f1', 'acme')}?count=5`, key: env.envKey });
    expect(list.statusCode).toBe(200);
    const jobs = list.json();
    expect(jobs.map((j: any) => j.job_id)[0]).toBe(second.job_id);
    expect(jobs[0]).toMatchObject({ flow: 'f1', status: 'JOB_COMPLETED', export_details: { target: 'target-jsonl', status: 'succeeded', streams: { people: { records: 0 } } } });
    expect(jobs[0].flow_id).toBeUndefined();
    expect(jobs[0].state).toBeUndefined();
    expect(jobs[1].export_details).toMatchObject({ records: 30, streams: { people: { records: 30 } } });
    const withState = (await h().request({ method: 'GET', url: `${env.url('f1', 'acme')}?count=1&include_state=true&include_export_details=false`, key: env.envKey })).json();
    expect(withState).toHaveLength(1);
    expect(withState[0].state).toEqual({ bookmarks: { contacts: { updated_at: '2024-01-01T00:00:29Z' } } });
    expect(withState[0].export_details).toBeUndefined();
    const page2 = (await h().request({ method: 'GET', url: `${env.url('f1', 'acme')}?count=1&page=2`, key: env.envKey })).json();
    expect(page2.map((j: any) => j.job_name)).not.toContain('nested name');

    const latest = await h().request({ method: 'GET', url: env.url('f1', 'acme', '/latest'), key: env.envKey });
    expect(latest.json()).toMatchObject({ job_id: second.job_id, flow_id: 'f1' });
    const logs = await h().request({ method: 'GET', url: env.url('f1', 'acme', `/${second.job_id}/logs`), key: env.envKey });
    expect(logs.statusCode).toBe(200);
    expect(logs.json().log).toContain('status JOB_COMPLETED');
    const missing = await h().request({ method: 'GET', url: `${env.url('f1', 'acme', '/status')}?job_root=acme/nope`, key: env.envKey });
    expect(missing.statusCode).toBe(404);
  });

  it('redacts config values a connector prints from the log and the message', async () => {
    await linkSource(h(), env, 'f1', 'echo', 'tap-echo', { password: 'hunter2-PASSWORD' });
    const created = await runJob(h(), env, 'f1', 'echo');
    const job = await waitForJob(h(), env, 'f1', 'echo', created.s3_root);
    expect(job.status).toBe('DISCOVER_FAILED');
    expect(job.message).toContain('[REDACTED]');
    expect(job.message).not.toContain('hunter2-PASSWORD');
    const log = (await h().request({ method: 'GET', url: env.url('f1', 'echo', `/${created.job_id}/logs`), key: env.envKey })).json().log;
    expect(log).toContain('tap: {"password":"[REDACTED]"}');
    expect(log).not.toContain('hunter2');
    expect(await eventPath(h(), created.job_id)).toEqual(['job:JOB_CREATED', 'job:DISCOVER_STARTED', 'discover:DISCOVER_STARTED', 'discover:DISCOVER_FAILED', 'job:DISCOVER_FAILED']);
    const events = await h().ctx.db.kysely.selectFrom('webhook_events').select('payload').where('ordering_key', '=', `job:${created.job_id}`).execute();
    const failed = events.map((r) => JSON.parse(r.payload).data).find((d) => d.connector === 'tap-echo' && d.status === 'DISCOVER_FAILED');
    expect(failed.message).toContain('[REDACTED]');
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('runs a v2 read job into the flow read-side connector', async () => {
    const link = await h().request({ method: 'POST', url: `/v2/${env.envId}/f2/acme/linkedConnectors`, key: env.envKey, body: { connector: { id: 'sample', config: { record_count: 7, streams: ['deals'] } } } });
    expect(link.statusCode).toBe(200);
    const res = await h().request({ method: 'POST', url: `/v2/${env.envId}/f2/acme/jobs`, key: env.envKey, body: { connector_id: 'sample', job_type: 'read' } });
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({ connector_id: 'sample', job_type: 'read', flow_id: 'f2', scheduled_job: false, processed_rows: 0 });
    const job = await waitForJob(h(), env, 'f2', 'acme', created.s3_root);
    expect(job).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 7 });
    expect(readJsonl(path.join(env.out, 'v2-read', 'deals.jsonl'))).toHaveLength(7);
    expect(await storedState(h(), env, 'f2', 'acme', 'connector')).toMatchObject({ bookmarks: { deals: {} } });
  });

  it('runs the Python fixture tap', async () => {
    await linkSource(h(), env, 'f1', 'py', 'tap-python', { record_count: 4 });
    const created = await runJob(h(), env, 'f1', 'py', { override_target_config: { destination_path: path.join(env.out, 'py') } });
    const job = await waitForJob(h(), env, 'f1', 'py', created.s3_root);
    expect(job).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 4 });
    expect(readJsonl(path.join(env.out, 'py', 'items.jsonl'))).toHaveLength(4);
  });

  it('entity_id filters the job listing and the latest job by link (tap)', async () => {
    await linkSource(h(), env, 'f1', 'two', 'tap-python', { record_count: 1 });
    await linkSource(h(), env, 'f1', 'two', 'tap-sample', { record_count: 1 });
    const py = await runJob(h(), env, 'f1', 'two', { tap: 'tap-python', override_target_config: { destination_path: path.join(env.out, 'two') } });
    await waitForJob(h(), env, 'f1', 'two', py.s3_root);
    const sample = await runJob(h(), env, 'f1', 'two', { tap: 'tap-sample', override_target_config: { destination_path: path.join(env.out, 'two') } });
    await waitForJob(h(), env, 'f1', 'two', sample.s3_root);
    const get = async (suffix: string) => (await h().request({ method: 'GET', url: env.url('f1', 'two', suffix), key: env.envKey }));
    expect((await get('?entity_id=tap-python&entity_type=source')).json().map((j: any) => j.job_id)).toEqual([py.job_id]);
    expect((await get('?entity_id=tap-sample&entity_type=source')).json().map((j: any) => j.job_id)).toEqual([sample.job_id]);
    expect((await get('')).json().map((j: any) => j.job_id)).toEqual([sample.job_id, py.job_id]);
    expect((await get('/latest?entity_id=tap-python&entity_type=source')).json()).toMatchObject({ job_id: py.job_id, tap: 'tap-python' });
    expect((await get('/latest?')).json()).toMatchObject({ job_id: sample.job_id });
    const none = await get('/latest?entity_id=tap-echo&entity_type=source');
    expect(none.statusCode).toBe(404);
    expect(none.json().Message).toContain('"tap-echo"');
  });

  it('skips the export without an export side: the ETL output stays in job storage', async () => {
    await linkSource(h(), env, 'noexport', 'acme', 'tap-sample', { record_count: 3, streams: ['companies'] });
    const created = await runJob(h(), env, 'noexport', 'acme');
    const job = await waitForJob(h(), env, 'noexport', 'acme', created.s3_root);
    expect(job.status).toBe('JOB_COMPLETED');
    expect(await statusPath(h(), created.job_id)).toEqual(['JOB_CREATED', 'DISCOVER_STARTED', 'SYNC_STARTED', 'SYNC_SUCCESS', 'ETL_STARTED', 'ETL_SUCCESS', 'JOB_COMPLETED']);
    const dir = jobDir(h(), env, created.s3_root);
    expect(readJsonl(path.join(dir, 'etl-output', 'companies.jsonl'))).toHaveLength(3);
  });

  it('streaming_job goes from SYNC_SUCCESS straight to the export', async () => {
    const created = await runJob(h(), env, 'f1', 'py', { streaming_job: true, override_target_config: { destination_path: path.join(env.out, 'py-stream') } });
    const job = await waitForJob(h(), env, 'f1', 'py', created.s3_root);
    expect(job.status).toBe('JOB_COMPLETED');
    expect(await statusPath(h(), created.job_id)).toEqual(['JOB_CREATED', 'SYNC_STARTED', 'SYNC_SUCCESS', 'EXPORT_STARTED', 'JOB_COMPLETED']);
  });
});
