// The scheduler loop against a real database with a controllable clock: one run per
// due time, misfire catch-up once, disabling, outcomes, overrides, DST in two zones.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore } from '../../test/harness.ts';
import type { AppContext } from '../context.ts';
import type { Dispatch } from './fire.ts';
import { createScheduler } from './scheduler.ts';
import { putSchedule, type ScheduleRequest } from './service.ts';
import { fakeClock, isolatedContext, recordingDispatch, seedEnvAndFlow, type IsolatedContext, type RecordedRun } from './testing.ts';

const clock = fakeClock(Date.UTC(2026, 0, 5, 10, 0, 30));
const ENV = 'schedenv';
const FLOW = 'flow1';
const minute = 60_000;

describeEachStore('scheduler', (h) => {
  let iso: IsolatedContext;
  let ctx: AppContext;
  let runs: RecordedRun[];
  let dispatch: Dispatch;
  let tenantCounter = 0;

  beforeAll(async () => {
    iso = await isolatedContext(h().ctx, clock.now);
    ctx = iso.ctx;
    await seedEnvAndFlow(ctx, ENV, FLOW);
  });
  afterAll(async () => iso?.close());
  beforeEach(async () => {
    await ctx.db.kysely.deleteFrom('schedules').execute();
    ({ dispatch, runs } = recordingDispatch(clock.now));
  });

  const put = (req: ScheduleRequest, tenant = `t${++tenantCounter}`) => putSchedule(ctx, systemTenantScope(ENV, tenant), FLOW, req);
  const scheduler = (d: Dispatch = dispatch) => createScheduler(ctx, { dispatch: d, now: clock.now });
  const row = (id: string) => ctx.db.kysely.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('fires each due time once, as a scheduled job carrying the overrides', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const view = await put({
      schedule_expression: '* * * * *', connector_id: 'hubspot', override_start_date: '2025-06-01',
      override_selected_tables: { deals: true }, environment_variables: { TOKEN: 'x' },
    });
    const s = scheduler();
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 59, 999));
    expect((await s.tick()).claimed).toBe(0);
    clock.set(Date.UTC(2026, 0, 5, 10, 1, 0));
    expect((await s.tick()).claimed).toBe(1);
    expect((await s.tick()).claimed).toBe(0);
    expect(runs[0]).toMatchObject({
      envId: ENV, flowId: FLOW, tenant: view.tenant,
      request: { tap: 'hubspot', job_type: 'read', override_start_date: '2025-06-01', override_selected_tables: { deals: true }, environment_variables: { TOKEN: 'x' } },
      origin: { scheduled: true, scheduleId: view.id, overlap: 'skip', dueAt: Date.UTC(2026, 0, 5, 10, 1) },
    });
    expect(await row(view.id)).toMatchObject({ last_run_at: Date.UTC(2026, 0, 5, 10, 1), next_run_at: Date.UTC(2026, 0, 5, 10, 2), last_job_id: 'job_1' });
    clock.advance(minute);
    await s.tick();
    expect(runs.map((r) => r.origin.dueAt - Date.UTC(2026, 0, 5, 10))).toEqual([minute, 2 * minute]);
  });

  it('after downtime runs a missed schedule once, then resumes its cadence', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const view = await put({ schedule_expression: '*/5 * * * *' });
    clock.set(Date.UTC(2026, 0, 5, 13, 7, 12)); // three hours down: 36 due times missed
    const s = scheduler();
    expect((await s.tick()).claimed).toBe(1);
    expect((await s.tick()).claimed).toBe(0);
    expect(runs[0]?.origin.dueAt).toBe(Date.UTC(2026, 0, 5, 10, 5));
    expect((await row(view.id)).next_run_at).toBe(Date.UTC(2026, 0, 5, 13, 10));
    clock.set(Date.UTC(2026, 0, 5, 13, 10));
    expect((await s.tick()).claimed).toBe(1);
    expect(runs).toHaveLength(2);
  });

  it('stops at once when disabled and restarts from now when enabled again', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const view = await put({ schedule_expression: '* * * * *' }, 'toggle');
    await put({ schedule_expression: '* * * * *', state: 'DISABLED' }, 'toggle');
    clock.set(Date.UTC(2026, 0, 5, 10, 30));
    const s = scheduler();
    expect((await s.tick()).claimed).toBe(0);
    await put({ schedule_expression: '* * * * *', state: 'ENABLED' }, 'toggle');
    expect((await row(view.id)).next_run_at).toBe(Date.UTC(2026, 0, 5, 10, 31));
    expect((await s.tick()).claimed).toBe(0);
  });

  it('records skipped runs and survives a dispatch that throws', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const skipped = await put({ schedule_expression: '* * * * *' });
    const failing = await put({ schedule_expression: '* * * * *' });
    const d: Dispatch = async (_c, scope) => {
      if (scope.tenant === failing.tenant) throw new Error('no linked source');
      return { kind: 'skipped', activeJobId: 'job_active' };
    };
    clock.set(Date.UTC(2026, 0, 5, 10, 1));
    const result = await scheduler(d).tick();
    expect(result).toMatchObject({ claimed: 2, failed: 1 });
    expect((await row(skipped.id)).skipped_runs).toBe(1);
    // The failed due time is not retried; the next one comes at its time.
    expect((await row(failing.id)).next_run_at).toBe(Date.UTC(2026, 0, 5, 10, 2));
  });

  it('drains more due schedules than one batch', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    for (let i = 0; i < 25; i++) await put({ schedule_expression: '* * * * *' });
    clock.set(Date.UTC(2026, 0, 5, 10, 1));
    const result = await createScheduler(ctx, { dispatch, now: clock.now, batchSize: 10 }).drain();
    expect(result.claimed).toBe(25);
    expect(new Set(runs.map((r) => r.origin.scheduleId)).size).toBe(25);
  });

  it('claims and records a batch larger than one statement chunk', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    for (let i = 0; i < 230; i++) await put({ schedule_expression: '* * * * *' });
    clock.set(Date.UTC(2026, 0, 5, 10, 1));
    expect((await scheduler().tick()).claimed).toBe(230);
    const rows = await ctx.db.kysely.selectFrom('schedules').select(['last_job_id', 'next_run_at']).execute();
    expect(new Set(rows.map((r) => r.last_job_id)).size).toBe(230);
    expect(rows.every((r) => r.next_run_at === Date.UTC(2026, 0, 5, 10, 2))).toBe(true);
  });

  /** Jumps the clock from due time to due time and returns the local times fired. */
  async function fireTimes(id: string, count: number, timezone: string): Promise<string[]> {
    const s = scheduler();
    const fired: string[] = [];
    for (let i = 0; i < count; i++) {
      const next = (await row(id)).next_run_at;
      if (next === null) break;
      clock.set(next);
      await s.tick();
      fired.push(localTime(runs.at(-1)?.origin.dueAt ?? 0, timezone));
    }
    return fired;
  }

  it.each([
    ['30 */20 * * * *', ['10:20:30', '10:40:30', '11:00:30']],
    ['cron(0/15 * ? * * *)', ['10:15:00', '10:30:00', '10:45:00']],
    ['@hourly', ['11:00:00', '12:00:00', '13:00:00']],
    ['rate(25 minutes)', ['10:30:00', '10:55:00', '11:20:00']], // anchored to the Unix epoch
  ])('fires %s at its due times', async (expression, times) => {
    clock.set(Date.UTC(2026, 0, 5, 10, 5));
    const view = await put({ schedule_expression: expression });
    expect(await fireTimes(view.id, 3, 'UTC')).toEqual(times.map((t) => `2026-01-05 ${t.slice(0, 5)} UTC`));
    expect(runs.map((r) => new Date(r.origin.dueAt).toISOString().slice(11, 19))).toEqual(times);
  });

  it('DST New York: spring-forward 02:30 runs at 03:00 EDT; fall-back 01:30 runs once', async () => {
    clock.set(Date.UTC(2026, 2, 6, 12));
    const spring = await put({ schedule_expression: '30 2 * * *', timezone: 'America/New_York' });
    expect(await fireTimes(spring.id, 3, 'America/New_York')).toEqual(['2026-03-07 02:30 EST', '2026-03-08 03:00 EDT', '2026-03-09 02:30 EDT']);
    clock.set(Date.UTC(2026, 9, 31, 12));
    const fall = await put({ schedule_expression: '30 1 * * *', timezone: 'America/New_York' });
    expect(await fireTimes(fall.id, 3, 'America/New_York')).toEqual(['2026-11-01 01:30 EDT', '2026-11-02 01:30 EST', '2026-11-03 01:30 EST']);
  });

  it('DST Berlin: spring-forward 02:30 runs at 03:00 CEST; an hourly job runs in both copies of the repeated hour', async () => {
    clock.set(Date.UTC(2026, 2, 28, 12));
    const spring = await put({ schedule_expression: '30 2 * * *', timezone: 'Europe/Berlin' });
    expect(await fireTimes(spring.id, 2, 'Europe/Berlin')).toEqual(['2026-03-29 03:00 GMT+2', '2026-03-30 02:30 GMT+2']);
    clock.set(Date.UTC(2026, 9, 24, 23, 10)); // 01:10 CEST on 25 October
    const hourly = await put({ schedule_expression: '0 * * * *', timezone: 'Europe/Berlin' });
    expect(await fireTimes(hourly.id, 3, 'Europe/Berlin')).toEqual(['2026-10-25 02:00 GMT+2', '2026-10-25 02:00 GMT+1', '2026-10-25 03:00 GMT+1']);
  });
}, { now: clock.now });

function localTime(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
  }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}
