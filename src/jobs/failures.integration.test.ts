import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { saveDiscoveredCatalog } from '../links/job-plan.ts';
import { describeEachStore } from '../../test/harness.ts';
import { FIXTURES, ITEMS_CATALOG, linkSource, readJsonl, runJob, setupJobEnv, storedState, waitForJob, jobDir, type JobEnv } from './testing.ts';
import { startJobWorker, type JobWorker } from './worker.ts';

describeEachStore('jobs: failures, state and overrides', (h) => {
  let env: JobEnv;
  let worker: JobWorker;
  beforeAll(async () => {
    env = await setupJobEnv(h(), [{
      id: 'etl', taps: ['tap-sample'], targets: ['target-jsonl'], etl: { command: ['python3', path.join(FIXTURES, 'etl-upper.py')] },
      export: { target: 'target-jsonl', config: { destination_path: path.join(fs.mkdtempSync('/tmp/tapline-etl-'), 'out') } },
    }]);
    worker = startJobWorker(h().ctx, { envIds: [env.envId] });
  });
  afterAll(async () => worker?.stop());

  async function runToEnd(flow: string, tenant: string, body: Record<string, unknown> = {}) {
    const created = await runJob(h(), env, flow, tenant, body);
    return waitForJob(h(), env, flow, tenant, created.s3_root);
  }

  it('DISCOVER_FAILED when discovery fails', async () => {
    await linkSource(h(), env, 'f1', 'd1', 'tap-fail');
    const job = await runToEnd('f1', 'd1');
    expect(job.status).toBe('DISCOVER_FAILED');
    expect(job.message).toMatch(/tap exited with code 1[\s\S]*simulated upstream API error/);
  });

  it('SYNC_FAILED when the tap fails mid-sync; the stored state does not move', async () => {
    await linkSource(h(), env, 'f1', 's1', 'tap-sample', { fail_after: 5, state_interval: 2 });
    const job = await runToEnd('f1', 's1');
    expect(job).toMatchObject({ status: 'SYNC_FAILED', processed_rows: 0 });
    expect(job.message).toMatch(/tap exited with code 1/);
    expect(await storedState(h(), env, 'f1', 's1')).toBeNull();
  });

  it('SYNC_FAILED with the line number of a malformed tap line', async () => {
    await linkSource(h(), env, 'f1', 's2', 'tap-malformed');
    await saveDiscoveredCatalog(h().ctx.db.kysely, systemTenantScope(env.envId, 's2'), 'f1', { kind: 'source', name: 'tap-malformed' }, ITEMS_CATALOG);
    const job = await runToEnd('f1', 's2');
    expect(job.status).toBe('SYNC_FAILED');
    expect(job.message).toMatch(/line 3/);
  });

  it('ETL_FAILED from a failing ETL command; the same command succeeds without FAIL_ETL', async () => {
    await linkSource(h(), env, 'etl', 'e1', 'tap-sample', { record_count: 4, streams: ['companies'] });
    const failed = await runToEnd('etl', 'e1', { environment_variables: { FAIL_ETL: '1' } });
    expect(failed.status).toBe('ETL_FAILED');
    expect(failed.message).toMatch(/failing on purpose/);
    const ok = await runToEnd('etl', 'e1');
    expect(ok.status).toBe('JOB_COMPLETED');
    const dir = jobDir(h(), env, ok.s3_root);
    const rows = readJsonl(path.join(dir, 'etl-output', 'companies.jsonl'));
    expect(rows).toHaveLength(4);
    expect(rows[0].name).toBe(rows[0].name.toUpperCase());
  });

  it('a failed export keeps the stored state, and the next job re-delivers those records', async () => {
    const dest = path.join(env.out, 'x1');
    await linkSource(h(), env, 'f1', 'x1', 'tap-sample', { record_count: 12, streams: ['deals'] });
    const failed = await runToEnd('f1', 'x1', { override_target_config: { destination_path: dest, fail_on_record: 3 } });
    expect(failed).toMatchObject({ status: 'EXPORT_FAILED', processed_rows: 12 });
    expect(failed.message).toMatch(/target exited with code 1/);
    expect(await storedState(h(), env, 'f1', 'x1')).toBeNull();
    const list = (await h().request({ method: 'GET', url: env.url('f1', 'x1'), key: env.envKey })).json();
    expect(list[0].export_details).toMatchObject({ target: 'target-jsonl', status: 'failed', records: 12 });

    // Overrides were for that job only: the next one exports with the saved config, everything again.
    fs.rmSync(dest, { recursive: true, force: true });
    const next = await runToEnd('f1', 'x1', { override_target_config: { destination_path: dest } });
    expect(next).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 12 });
    expect(readJsonl(path.join(dest, 'deals.jsonl')).map((r) => r.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await storedState(h(), env, 'f1', 'x1')).toEqual({ bookmarks: { deals: { updated_at: '2024-01-01T00:00:11Z' } } });
  });

  it('syncs incrementally; reset_source_state makes a full sync and clears state only on completion', async () => {
    await linkSource(h(), env, 'f1', 'r1', 'tap-sample', { record_count: 6, streams: ['contacts'] });
    expect((await runToEnd('f1', 'r1')).processed_rows).toBe(6);
    const incremental = await runToEnd('f1', 'r1');
    expect(incremental).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 0 });
    const bookmarked = { bookmarks: { contacts: { updated_at: '2024-01-01T00:00:05Z' } } };
    expect(await storedState(h(), env, 'f1', 'r1')).toEqual(bookmarked);

    const failedReset = await runToEnd('f1', 'r1', { reset_source_state: true, override_target_config: { fail_on_record: 1 } });
    expect(failedReset.status).toBe('EXPORT_FAILED');
    expect(await storedState(h(), env, 'f1', 'r1')).toEqual(bookmarked);

    const reset = await runToEnd('f1', 'r1', { reset_source_state: true });
    expect(reset).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 6 });
    expect(await storedState(h(), env, 'f1', 'r1')).toEqual(bookmarked);
  });

  it('applies override_start_date, override_selected_tables and override_source_config to one job only', async () => {
    await linkSource(h(), env, 'f1', 'o1', 'tap-sample', { record_count: 20 });
    const windowed = await runToEnd('f1', 'o1', {
      override_start_date: '2024-01-01T00:00:15Z', override_selected_tables: { deals: true }, override_source_config: { seed: 7 },
    });
    expect(windowed).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 5 });
    const dir = jobDir(h(), env, windowed.s3_root);
    expect(fs.readdirSync(path.join(dir, 'sync-output')).filter((f) => f.endsWith('.jsonl'))).toEqual(['deals.jsonl']);
    const linked = (await h().request({ method: 'GET', url: `/${env.envId}/f1/o1/linkedSources?config=true`, key: env.envKey })).json();
    expect(linked[0].config).toEqual({ record_count: 20 });
    // The next job: the stored catalog selection and the bookmark of the windowed run (deals only).
    const next = await runToEnd('f1', 'o1');
    expect(next).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 40 });
  });

  it('refuses a bad request before creating a job', async () => {
    await linkSource(h(), env, 'f1', 'b1', 'tap-sample');
    const bad = await h().request({ method: 'POST', url: env.url('f1', 'b1'), key: env.envKey, body: { environment_variables: { PATH: '/evil' } } });
    expect(bad.statusCode).toBe(400);
    const date = await h().request({ method: 'POST', url: env.url('f1', 'b1'), key: env.envKey, body: { override_start_date: 'yesterday' } });
    expect(date.statusCode).toBe(400);
    const unlinked = await h().request({ method: 'POST', url: env.url('f1', 'nobody'), key: env.envKey, body: {} });
    expect(unlinked.statusCode).toBe(404);
    const v2 = await h().request({ method: 'POST', url: `/v2/${env.envId}/f1/b1/jobs`, key: env.envKey, body: { connector_id: 'x', job_type: 'read' } });
    expect(v2.statusCode).toBe(400);
  });

  it('refuses a bad override_lifecycle_webhook (URL or secret) for run and queued jobs', async () => {
    await linkSource(h(), env, 'f1', 'hook', 'tap-sample');
    const run = (hook: unknown, extra: Record<string, unknown> = {}) =>
      h().request({ method: 'POST', url: env.url('f1', 'hook'), key: env.envKey, body: { override_lifecycle_webhook: hook, ...extra } });
    for (const hook of [{ url: 'ftp://hooks.example.com/x' }, { url: 'https://user:pw@hooks.example.com/x' }, { url: 'not a url' },
      { url: 'https://hooks.example.com/x', secret: 'whsec_***' }, { url: 'https://hooks.example.com/x', secret: '' }]) {
      const answer = await run(hook);
      expect(answer.statusCode, JSON.stringify(hook)).toBe(400);
      expect(answer.json().Message).toMatch(/Webhook (URL refused|secret)/);
      expect((await run(hook, { queue_if_active_job: true })).statusCode).toBe(400);
    }
    const jobs = await h().request({ method: 'GET', url: env.url('f1', 'hook'), key: env.envKey });
    expect(jobs.json()).toEqual([]);
    const good = await runJob(h(), env, 'f1', 'hook', { override_lifecycle_webhook: { url: 'https://hooks.example.com/x', secret: 'whsec_MTIzNDU2Nzg5MGFiY2RlZg==' } });
    await waitForJob(h(), env, 'f1', 'hook', good.s3_root);
  });
});
