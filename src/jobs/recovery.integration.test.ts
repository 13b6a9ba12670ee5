import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject, it } from 'vitest';
import { systemEnvScope } from '../auth/scope.ts';
import { describeEachStore } from '../../test/harness.ts';
import { recoverLostJobs, WORKER_LOST_MESSAGE } from './recovery.ts';
import { transitionJob } from './status.ts';
import { jobStatus, linkSlowTap, linkSource, runJob, setupJobEnv, storedState, tempDir, waitFor, waitForJob } from './testing.ts';
import { startJobWorker, WORKER_STOPPED_MESSAGE } from './worker.ts';
import { processAlive } from './worker-id.ts';

const CRASH_WORKER = fileURLToPath(new URL('./fixtures/crash-worker.ts', import.meta.url));

describeEachStore('jobs: crash recovery', (h) => {
  it('fails the job of a worker killed with SIGKILL ("worker lost"), keeps the state, starts the queued job', async () => {
    const env = await setupJobEnv(h());
    const pidFile = path.join(tempDir(), 'pids.json');
    await linkSlowTap(h(), env, 'crash', { pid_file: pidFile });
    const a = await runJob(h(), env, 'f1', 'crash');
    const b = await runJob(h(), env, 'f1', 'crash', { queue_if_active_job: true, override_source_config: { record_count: 3, pid_file: null } });

    const { config } = h().ctx;
    const child = spawn(process.execPath, [CRASH_WORKER, JSON.stringify({
      dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: inject('pgSchema') ?? undefined, secretKey: config.secretKey, envId: env.envId,
    })], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const pids = await waitFor(() => (fs.existsSync(pidFile) ? JSON.parse(fs.readFileSync(pidFile, 'utf8')) : undefined));
      await waitForJob(h(), env, 'f1', 'crash', a.s3_root, (j) => j.status === 'SYNC_STARTED' && j.message === '');
      child.kill('SIGKILL');
      await exited;
      expect((await jobStatus(h(), env, 'f1', 'crash', a.s3_root)).status).toBe('SYNC_STARTED');

      const worker = startJobWorker(h().ctx, { envIds: [env.envId] }); // recovers on start
      try {
        const lost = await waitForJob(h(), env, 'f1', 'crash', a.s3_root);
        expect(lost).toMatchObject({ status: 'SYNC_FAILED', message: WORKER_LOST_MESSAGE });
        expect(await waitFor(() => !processAlive(pids.pid) && !processAlive(pids.child_pid), 3000)).toBe(true);
        expect(await storedState(h(), env, 'f1', 'crash')).toBeNull();
        const next = await waitForJob(h(), env, 'f1', 'crash', b.s3_root);
        expect(next).toMatchObject({ job_id: b.job_id, status: 'JOB_COMPLETED', processed_rows: 3 });
      } finally {
        await worker.stop();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('detects a dead worker by its heartbeat after workerLostAfterMs', async () => {
    const env = await setupJobEnv(h());
    await linkSource(h(), env, 'f1', 'hb', 'tap-sample');
    const created = await runJob(h(), env, 'f1', 'hb');
    const { ctx } = h();
    const db = ctx.db.kysely;
    await transitionJob(db, ctx, systemEnvScope(env.envId), created.job_id, 'JOB_CREATED', 'SYNC_STARTED');
    const setBeat = (at: number) => db.updateTable('jobs').set({ worker_id: 'elsewhere/1/abcd', heartbeat_at: at }).where('job_id', '=', created.job_id).execute();

    await setBeat(ctx.now() - ctx.config.workerLostAfterMs + 500);
    expect((await recoverLostJobs(ctx, { workerId: 'me', envIds: [env.envId] })).failed).toEqual([]);
    await setBeat(ctx.now() - ctx.config.workerLostAfterMs - 1);
    expect((await recoverLostJobs(ctx, { workerId: 'me', envIds: [env.envId] })).failed).toEqual([created.job_id]);
    expect(await jobStatus(h(), env, 'f1', 'hb', created.s3_root)).toMatchObject({ status: 'SYNC_FAILED', message: WORKER_LOST_MESSAGE });
  });

  it('a kill recorded by another process stops the processes here at the next heartbeat', async () => {
    const env = await setupJobEnv(h());
    const pidFile = path.join(tempDir(), 'pids.json');
    await linkSlowTap(h(), env, 'remote', { pid_file: pidFile });
    const worker = startJobWorker(h().ctx, { envIds: [env.envId] });
    try {
      const created = await runJob(h(), env, 'f1', 'remote');
      const pids = await waitFor(() => (fs.existsSync(pidFile) ? JSON.parse(fs.readFileSync(pidFile, 'utf8')) : undefined));
      await waitForJob(h(), env, 'f1', 'remote', created.s3_root, (j) => j.status === 'SYNC_STARTED');
      // What a kill answered by another Tapline process does: only the status changes, in the database.
      const { ctx } = h();
      await transitionJob(ctx.db.kysely, ctx, systemEnvScope(env.envId), created.job_id, 'SYNC_STARTED', 'SYNC_FAILED', { message: 'Killed: elsewhere' });
      await waitFor(() => !processAlive(pids.pid) && !processAlive(pids.child_pid), 3000);
      await waitFor(() => worker.running() === 0, 3000);
      expect(await jobStatus(h(), env, 'f1', 'remote', created.s3_root)).toMatchObject({ status: 'SYNC_FAILED', message: 'Killed: elsewhere' });
    } finally {
      await worker.stop();
    }
  });

  it('a stopping worker fails its running jobs with "worker stopped"', async () => {
    const env = await setupJobEnv(h());
    await linkSlowTap(h(), env, 'stop');
    const worker = startJobWorker(h().ctx, { envIds: [env.envId] });
    const created = await runJob(h(), env, 'f1', 'stop');
    await waitForJob(h(), env, 'f1', 'stop', created.s3_root, (j) => j.status === 'SYNC_STARTED');
    await worker.stop();
    expect(await jobStatus(h(), env, 'f1', 'stop', created.s3_root)).toMatchObject({ status: 'SYNC_FAILED', message: WORKER_STOPPED_MESSAGE });
  });
}, { config: { heartbeatMs: 200, workerLostAfterMs: 1000 } });
