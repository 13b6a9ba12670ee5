import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { LineCounter } from './progress.ts';
import { isTerminal } from './status-table.ts';
import { jobStatus, linkSource, runJob, tempDir, waitForJob, type JobEnv, startWorkingJobEnv } from './testing.ts';
import type { JobWorker } from './worker.ts';

it('LineCounter counts complete lines per stream file, reading only what was appended', async () => {
  const dir = tempDir();
  expect(await new LineCounter(path.join(dir, 'missing')).count()).toEqual({});
  const counter = new LineCounter(dir);
  fs.writeFileSync(path.join(dir, 'a.jsonl'), '{"id":1}\n{"id":2}\n{"id"');
  fs.writeFileSync(path.join(dir, 'b%2Fc.jsonl'), '');
  fs.writeFileSync(path.join(dir, '_schemas.json'), '{}\n');
  expect(await counter.count()).toEqual({ a: 2, 'b/c': 0 });
  fs.appendFileSync(path.join(dir, 'a.jsonl'), ':3}\n');
  fs.appendFileSync(path.join(dir, 'b%2Fc.jsonl'), '{}\n'.repeat(300_000));
  expect(await counter.count()).toEqual({ a: 3, 'b/c': 300_000 });
});

describeEachStore('jobs: progress and lifecycle event data', (h) => {
  let env: JobEnv;
  let worker: JobWorker;
  beforeAll(async () => {
    ({ env, worker } = await startWorkingJobEnv(h()));
  });
  afterAll(async () => worker?.stop());

  async function events(jobId: string): Promise<any[]> {
    const rows = await h().ctx.db.kysely.selectFrom('webhook_events').select('payload')
      .where('ordering_key', '=', `job:${jobId}`).orderBy('id').execute();
    return rows.map((r) => JSON.parse(r.payload).data);
  }

  it('processed_rows moves while a long sync runs, not only at SYNC_SUCCESS', async () => {
    await linkSource(h(), env, 'noexport', 'slow', 'tap-sample', { record_count: 1500, sleep_ms_per_record: 1, streams: ['contacts'] });
    const created = await runJob(h(), env, 'noexport', 'slow');
    const during = await waitForJob(h(), env, 'noexport', 'slow', created.s3_root, (job) => job.processed_rows > 0 || isTerminal(job.status));
    expect(during.status).toBe('SYNC_STARTED');
    expect(during.processed_rows).toBeGreaterThan(0);
    expect(during.processed_rows).toBeLessThan(1500);
    const done = await waitForJob(h(), env, 'noexport', 'slow', created.s3_root);
    expect(done).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 1500 });
    expect((await jobStatus(h(), env, 'noexport', 'slow', created.s3_root)).processed_rows).toBe(1500);
  });

  it('job.status_changed carries sync_type and metrics.recordCount per stream', async () => {
    await linkSource(h(), env, 'noexport', 'ev', 'tap-sample', { record_count: 4, streams: ['contacts', 'deals'] });
    const first = await runJob(h(), env, 'noexport', 'ev');
    await waitForJob(h(), env, 'noexport', 'ev', first.s3_root);
    const firstEvents = await events(first.job_id);
    expect(firstEvents[0]).toMatchObject({ status: 'JOB_CREATED', sync_type: 'full_sync', metrics: { recordCount: {} } });
    const synced = firstEvents.find((e) => e.status === 'SYNC_SUCCESS');
    expect(synced.metrics).toEqual({ recordCount: { contacts: 4, deals: 4 } });
    expect(firstEvents.at(-1)).toMatchObject({ status: 'JOB_COMPLETED', processed_rows: 8, sync_type: 'full_sync', metrics: { recordCount: { contacts: 4, deals: 4 } } });

    const second = await runJob(h(), env, 'noexport', 'ev');
    await waitForJob(h(), env, 'noexport', 'ev', second.s3_root);
    const secondEvents = await events(second.job_id);
    expect(secondEvents.every((e) => e.sync_type === 'incremental_sync')).toBe(true);
    expect(secondEvents.at(-1)).toMatchObject({ status: 'JOB_COMPLETED', metrics: { recordCount: { contacts: 0, deals: 0 } } });

    const reset = await runJob(h(), env, 'noexport', 'ev', { reset_source_state: true });
    await waitForJob(h(), env, 'noexport', 'ev', reset.s3_root);
    expect((await events(reset.job_id)).at(-1)).toMatchObject({ sync_type: 'full_sync', processed_rows: 8 });
  });
}, { config: { heartbeatMs: 100 } });
