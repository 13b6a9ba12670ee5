import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { jobStatus, linkSlowTap, linkSource, runJob, setupJobEnv, storedState, tempDir, waitFor, waitForJob, type JobEnv } from './testing.ts';
import { startJobWorker, type JobWorker } from './worker.ts';
import { processAlive as alive } from './worker-id.ts';

function readPids(file: string): { pid: number; child_pid: number } | undefined {
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}

describeEachStore('jobs: kill, parallel jobs and the queue', (h) => {
  let env: JobEnv;
  let worker: JobWorker;
  beforeAll(async () => {
    env = await setupJobEnv(h());
    worker = startJobWorker(h().ctx, { envIds: [env.envId] });
  });
  afterAll(async () => worker?.stop());

  const kill = (tenant: string, jobRoot: string, reason?: string) =>
    h().request({ method: 'POST', url: env.url('f1', tenant, '/kill'), key: env.envKey, body: { job_root: jobRoot, reason } });

  it('kills a job during sync: SYNC_FAILED "Killed: …", no process left, stored state unchanged', async () => {
    const pidFile = path.join(tempDir(), 'pids.json');
    await linkSlowTap(h(), env, 'k1', { pid_file: pidFile });
    const created = await runJob(h(), env, 'f1', 'k1');
    const pids = await waitFor(() => readPids(pidFile));
    await waitFor(async () => (await jobStatus(h(), env, 'f1', 'k1', created.s3_root)).status === 'SYNC_STARTED');
    const res = await kill('k1', created.s3_root, 'customer asked');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ job_id: created.job_id, status: 'SYNC_FAILED', message: 'Killed: customer asked', killed: true });
    expect(alive(pids.pid)).toBe(false);
    expect(alive(pids.child_pid)).toBe(false);
    expect(await storedState(h(), env, 'f1', 'k1')).toBeNull();
    // Killing a finished job answers its unchanged status.
    const again = await kill('k1', created.s3_root, 'twice');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'SYNC_FAILED', message: 'Killed: customer asked', killed: false });
    const missing = await kill('k1', 'k1/flows/f1/jobs/2024/01/01/00/nope', 'x');
    expect(missing.statusCode).toBe(404);
    const noRoot = await h().request({ method: 'POST', url: env.url('f1', 'k1', '/kill'), key: env.envKey, body: { reason: 'x' } });
    expect(noRoot.statusCode).toBe(400);
  });

  it('409 on a parallel job; queue_if_active_job queues in order; ignore_parallel_jobs runs at once', async () => {
    await linkSlowTap(h(), env, 'q1');
    const a = await runJob(h(), env, 'f1', 'q1');
    const conflict = await h().request({ method: 'POST', url: env.url('f1', 'q1'), key: env.envKey, body: {} });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ Code: 'ConflictError', job_id: a.job_id });
    expect(conflict.json().Message).toContain(a.job_id);

    const b = await runJob(h(), env, 'f1', 'q1', { queue_if_active_job: true, job_name: 'B', override_source_config: { token: 'secret-token' } });
    expect(b).toMatchObject({ status: 'QUEUED', tenant_id: 'q1', flow_id: 'f1', job_name: 'B', override_source_config: { token: '********' } });
    const c = await runJob(h(), env, 'f1', 'q1', { queue_if_active_job: true, job_name: 'C' });
    const d = await runJob(h(), env, 'f1', 'q1', { queue_if_active_job: true, job_name: 'D' });
    const queue = (await h().request({ method: 'GET', url: env.url('f1', 'q1', '/queue'), key: env.envKey })).json();
    expect(queue.queued_jobs.map((q: any) => q.job_name)).toEqual(['B', 'C', 'D']);
    const cancel = await h().request({ method: 'DELETE', url: env.url('f1', 'q1', `/queue/${c.id}`), key: env.envKey });
    expect(cancel.json()).toMatchObject({ id: c.id, status: 'CANCELLED' });
    // A queued job is also cancelled by kill, through the job_root it will have.
    const killedQueued = await kill('q1', d.s3_root, 'not needed');
    expect(killedQueued.json()).toMatchObject({ status: 'CANCELLED', killed: true });
    const e = await runJob(h(), env, 'f1', 'q1', { queue_if_active_job: true, job_name: 'E' });

    const parallel = await runJob(h(), env, 'f1', 'q1', { ignore_parallel_jobs: true, override_source_config: { record_count: 2 } });
    expect(parallel.status).toBe('JOB_CREATED');
    expect((await waitForJob(h(), env, 'f1', 'q1', parallel.s3_root)).status).toBe('JOB_COMPLETED');

    await kill('q1', a.s3_root, 'next');
    const startedB = await waitForJob(h(), env, 'f1', 'q1', b.s3_root, (j) => j.status === 'SYNC_STARTED');
    expect(startedB).toMatchObject({ job_id: b.job_id, job_name: 'B' });
    expect((await jobStatus(h(), env, 'f1', 'q1', e.s3_root)).status).toBe('QUEUED');
    await kill('q1', b.s3_root, 'next');
    await waitForJob(h(), env, 'f1', 'q1', e.s3_root, (j) => j.status === 'SYNC_STARTED');
    const started = (await h().request({ method: 'DELETE', url: env.url('f1', 'q1', `/queue/${e.id}`), key: env.envKey }));
    expect(started.statusCode).toBe(409);
    await kill('q1', e.s3_root, 'done');
    expect((await h().request({ method: 'GET', url: env.url('f1', 'q1', '/queue'), key: env.envKey })).json()).toEqual({ queued_jobs: [] });
  });

  it('returns the same job for a repeated Idempotency-Key', async () => {
    await linkSource(h(), env, 'f1', 'i1', 'tap-sample', { record_count: 2 });
    const first = await runJob(h(), env, 'f1', 'i1', {}, { 'idempotency-key': 'run-42' });
    const second = await runJob(h(), env, 'f1', 'i1', {}, { 'idempotency-key': 'run-42' });
    expect(second.job_id).toBe(first.job_id);
    await waitForJob(h(), env, 'f1', 'i1', first.s3_root);
    const third = await runJob(h(), env, 'f1', 'i1', {}, { 'idempotency-key': 'run-43' });
    expect(third.job_id).not.toBe(first.job_id);
    await waitForJob(h(), env, 'f1', 'i1', third.s3_root);
  });
});

describeEachStore('jobs: per-environment concurrency', (h) => {
  it('keeps jobs beyond the limit waiting in JOB_CREATED', async () => {
    const env = await setupJobEnv(h());
    const worker = startJobWorker(h().ctx, { envIds: [env.envId], envConcurrency: 1 });
    try {
      await linkSlowTap(h(), env, 'c1');
      await linkSource(h(), env, 'f1', 'c2', 'tap-sample', { record_count: 2 });
      const slow = await runJob(h(), env, 'f1', 'c1');
      await waitForJob(h(), env, 'f1', 'c1', slow.s3_root, (j) => j.status === 'SYNC_STARTED');
      const waiting = await runJob(h(), env, 'f1', 'c2');
      await new Promise((r) => setTimeout(r, 400));
      expect((await jobStatus(h(), env, 'f1', 'c2', waiting.s3_root)).status).toBe('JOB_CREATED');
      await h().request({ method: 'POST', url: env.url('f1', 'c1', '/kill'), key: env.envKey, body: { job_root: slow.s3_root } });
      expect((await waitForJob(h(), env, 'f1', 'c2', waiting.s3_root)).status).toBe('JOB_COMPLETED');
    } finally {
      await worker.stop();
    }
  });
});
