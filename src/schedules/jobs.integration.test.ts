// Schedules with the real job engine: a schedule set in a link body starts real
// scheduled jobs; overlap skip/queue/parallel; an every-minute schedule's job reaches
// JOB_COMPLETED with a job worker running.
import { beforeAll, expect, it } from 'vitest';
import { describeEachStore, uniqueId, type TestEnv } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';
import { startJobWorker } from '../jobs/worker.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { fakeClock } from './testing.ts';

const clock = fakeClock(Date.UTC(2026, 0, 5, 10, 0, 30));
const minute = 60_000;

describeEachStore('schedules with the job engine', (h) => {
  let env: TestEnv;
  let scheduler: Scheduler;
  const base = (tenant: string, flow = 'f1b') => `/${env.envId}/${flow}/${tenant}`;
  const jobs = async (tenant: string) =>
    (await h().request({ method: 'GET', url: `${base(tenant)}/jobs?scheduled=true&count=50`, key: env.envKey })).json();
  const schedule = async (tenant: string) =>
    (await h().request({ method: 'GET', url: `${base(tenant)}/jobs/schedule`, key: env.envKey })).json();
  const linkWithSchedule = async (tenant: string, overlap?: string) => {
    const res = await h().request({ method: 'POST', url: `${base(tenant)}/linkedSources`, key: env.envKey, body: sampleLink({ schedule: { schedule_expression: '* * * * *' } }) });
    expect(res.statusCode, res.body).toBe(200);
    if (overlap) {
      const put = await h().request({ method: 'PUT', url: `${base(tenant)}/jobs/schedule`, key: env.envKey, body: { schedule_expression: '* * * * *', overlap } });
      expect(put.statusCode, put.body).toBe(200);
    }
  };
  /** Moves the clock to the next whole minute and runs one scheduler pass. */
  const nextMinute = async () => {
    clock.set((Math.floor(clock.now() / minute) + 1) * minute);
    return scheduler.drain();
  };

  beforeAll(async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    env = await envWithCatalog(h());
    scheduler = createScheduler(h().ctx, { now: clock.now, envIds: [env.envId] });
  });

  it('cascades the default tenant schedule to a tenant that links afterwards', async () => {
    const put = await h().request({ method: 'PUT', url: `${base('default', 'f1')}/jobs/schedule`, key: env.envKey, body: { schedule_expression: '@hourly', schedule_jitter_minutes: 20, state: 'DISABLED' } });
    expect(put.statusCode, put.body).toBe(200);
    const tenant = uniqueId('late');
    expect((await h().request({ method: 'POST', url: `${base(tenant, 'f1')}/linkedSources`, key: env.envKey, body: sampleLink() })).statusCode).toBe(200);
    const copy = (await h().request({ method: 'GET', url: `${base(tenant, 'f1')}/jobs/schedule`, key: env.envKey })).json();
    expect(copy).toMatchObject({ ScheduleExpression: '@hourly', State: 'ENABLED', inherited: true, jitter_minutes: 20, connector_id: 'tap-sample' });
    const unlink = await h().request({ method: 'DELETE', url: `${base(tenant, 'f1')}/linkedSources?tap_name=tap-sample`, key: env.envKey });
    expect(unlink.statusCode).toBe(200);
    expect((await h().request({ method: 'GET', url: `${base(tenant, 'f1')}/jobs/schedule`, key: env.envKey })).json()).toMatchObject({ exists: false, State: 'DISABLED' });
  });

  it('skip: a run due while the previous job is active is recorded as skipped', async () => {
    const tenant = uniqueId('skip');
    await linkWithSchedule(tenant);
    await nextMinute();
    const [first] = await jobs(tenant);
    expect(first).toMatchObject({ scheduled_job: true, status: 'JOB_CREATED', tap: 'tap-sample' });
    await nextMinute(); // no worker runs in this block: the first job is still active
    expect(await jobs(tenant)).toHaveLength(1);
    expect(await schedule(tenant)).toMatchObject({ skipped_runs: 1, last_job_id: first.job_id, overlap: 'skip' });
  });

  it('queue: one run waits behind the active job; further ones are skipped', async () => {
    const tenant = uniqueId('queue');
    await linkWithSchedule(tenant, 'queue');
    await nextMinute();
    await nextMinute();
    await nextMinute();
    const queued = (await h().request({ method: 'GET', url: `${base(tenant)}/jobs/queue`, key: env.envKey })).json();
    expect(queued.queued_jobs).toHaveLength(1);
    expect(await jobs(tenant)).toHaveLength(1);
    expect((await schedule(tenant)).skipped_runs).toBe(1);
  });

  it('parallel: every due time starts a job', async () => {
    const tenant = uniqueId('par');
    await linkWithSchedule(tenant, 'parallel');
    await nextMinute();
    await nextMinute();
    expect(await jobs(tenant)).toHaveLength(2);
  });
}, { now: clock.now });

describeEachStore('an every-minute schedule in the embedded setup', (h) => {
  it('produces a real scheduled job that reaches JOB_COMPLETED', async () => {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('e2e');
    const url = `/${env.envId}/f1b/${tenant}`;
    expect((await h().request({ method: 'POST', url: `${url}/linkedSources`, key: env.envKey, body: sampleLink({}, { record_count: 5 }) })).statusCode).toBe(200);
    const put = await h().request({ method: 'PUT', url: `${url}/jobs/schedule`, key: env.envKey, body: { schedule_expression: '* * * * *' } });
    expect(put.statusCode).toBe(200);
    const worker = startJobWorker(h().ctx, { envIds: [env.envId], pollMs: 50 });
    try {
      const due = Date.parse(put.json().next_run_at);
      const result = await createScheduler(h().ctx, { now: () => due, envIds: [env.envId] }).drain();
      expect(result.claimed).toBe(1);
      const deadline = Date.now() + 20_000;
      let job: { status: string; scheduled_job: boolean } | undefined;
      while (Date.now() < deadline) {
        [job] = (await h().request({ method: 'GET', url: `${url}/jobs?scheduled=true`, key: env.envKey })).json();
        if (job && /COMPLETED|FAILED/.test(job.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(job).toMatchObject({ status: 'JOB_COMPLETED', scheduled_job: true });
    } finally {
      await worker.stop();
    }
  });
});
