import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore } from '../../test/harness.ts';
import { deleteTenantJobs } from './service.ts';
import { jobDir, linkSlowTap, linkSource, runJob, setupJobEnv, tempDir, waitFor, waitForJob, type JobEnv } from './testing.ts';
import { processAlive } from './worker-id.ts';
import { startJobWorker, type JobWorker } from './worker.ts';

describeEachStore('jobs: tenant deletion and lifecycle webhooks', (h) => {
  let env: JobEnv;
  let other: JobEnv;
  let worker: JobWorker;
  beforeAll(async () => {
    env = await setupJobEnv(h());
    other = await setupJobEnv(h());
    worker = startJobWorker(h().ctx, { envIds: [env.envId, other.envId] });
  });
  afterAll(async () => worker?.stop());

  it('kills running jobs, cancels the queue and removes rows and files of the tenant only', async () => {
    const pidFile = path.join(tempDir(), 'pids.json');
    await linkSlowTap(h(), env, 'gone', { pid_file: pidFile });
    await linkSource(h(), other, 'f1', 'gone', 'tap-sample', { record_count: 2 });
    const kept = await runJob(h(), other, 'f1', 'gone');
    await waitForJob(h(), other, 'f1', 'gone', kept.s3_root);
    const running = await runJob(h(), env, 'f1', 'gone');
    await runJob(h(), env, 'f1', 'gone', { queue_if_active_job: true });
    const pids = await waitFor(() => (fs.existsSync(pidFile) ? JSON.parse(fs.readFileSync(pidFile, 'utf8')) : undefined));
    const dir = jobDir(h(), env, running.s3_root);
    expect(fs.existsSync(dir)).toBe(true);

    const removed = await deleteTenantJobs(h().ctx, systemTenantScope(env.envId, 'gone'), { kill: true });
    expect(removed.jobs).toBe(1);
    expect(removed.files).toBeGreaterThan(0);
    expect(processAlive(pids.pid)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
    const db = h().ctx.db.kysely;
    expect(await db.selectFrom('queued_jobs').selectAll().where('env_id', '=', env.envId).where('tenant_id', '=', 'gone').execute()).toEqual([]);
    // The same tenant id in another environment keeps its job and files.
    expect((await db.selectFrom('jobs').select('job_id').where('env_id', '=', other.envId).execute()).map((r) => r.job_id)).toEqual([kept.job_id]);
    expect(fs.existsSync(jobDir(h(), other, kept.s3_root))).toBe(true);
  });

  it("sends a job's status events to its override_lifecycle_webhook", async () => {
    await linkSource(h(), env, 'f1', 'hooked', 'tap-sample', { record_count: 1 });
    const created = await runJob(h(), env, 'f1', 'hooked', { override_lifecycle_webhook: { url: 'https://hooks.example.com/job', secret: 'whsec_eDE=' } });
    await waitForJob(h(), env, 'f1', 'hooked', created.s3_root);
    const all = await h().ctx.db.kysely.selectFrom('webhook_events').select(['event_type', 'url', 'payload', 'secrets_enc'])
      .where('ordering_key', '=', `job:${created.job_id}`).orderBy('id').execute();
    const discovery = all.filter((r) => r.event_type === 'discover.status_changed').map((r) => JSON.parse(r.payload).data);
    expect(discovery).toEqual([
      { env_id: env.envId, flow_id: 'f1', tenant: 'hooked', connector: 'tap-sample', status: 'DISCOVER_STARTED', message: null, job_id: created.job_id },
      { env_id: env.envId, flow_id: 'f1', tenant: 'hooked', connector: 'tap-sample', status: 'DISCOVER_SUCCESS', message: null, job_id: created.job_id },
    ]);
    const rows = all.filter((r) => r.event_type === 'job.status_changed');
    expect(rows.map((r) => JSON.parse(r.payload).data.status)).toEqual([
      'JOB_CREATED', 'DISCOVER_STARTED', 'SYNC_STARTED', 'SYNC_SUCCESS', 'ETL_STARTED', 'ETL_SUCCESS', 'EXPORT_STARTED', 'JOB_COMPLETED',
    ]);
    expect(new Set(all.map((r) => r.url))).toEqual(new Set(['https://hooks.example.com/job']));
    expect(new Set(rows.map((r) => r.url))).toEqual(new Set(['https://hooks.example.com/job']));
    expect(rows[0]?.secrets_enc).not.toContain('whsec_eDE=');
    const data = JSON.parse(rows[7]!.payload).data;
    expect(data).toMatchObject({ job_id: created.job_id, status: 'JOB_COMPLETED', previous_status: 'EXPORT_STARTED', processed_rows: 3 });
    expect(data.state).toBeUndefined();
  });
});
