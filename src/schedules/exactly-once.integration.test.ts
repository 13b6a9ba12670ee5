// Two scheduler "processes" (two contexts, two connection pools) on one database race
// over 1,000 due times; each due time must be dispatched exactly once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { describeEachStore } from '../../test/harness.ts';
import { createScheduler } from './scheduler.ts';
import { putSchedule } from './service.ts';
import { fakeClock, isolatedContext, recordingDispatch, seedEnvAndFlow, type IsolatedContext } from './testing.ts';

const clock = fakeClock(Date.UTC(2026, 0, 5, 10, 0, 30));
const SCHEDULES = 50;
const MINUTES = 20;

describeEachStore('scheduler exactly once across processes', (h) => {
  let first: IsolatedContext;
  let second: IsolatedContext;

  beforeAll(async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    first = await isolatedContext(h().ctx, clock.now);
    second = await isolatedContext(h().ctx, clock.now, first);
    await seedEnvAndFlow(first.ctx, 'race', 'flow1');
    for (let i = 0; i < SCHEDULES; i++) {
      await putSchedule(first.ctx, systemTenantScope('race', `tenant${i}`), 'flow1', { schedule_expression: '* * * * *' });
    }
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it(`dispatches ${SCHEDULES * MINUTES} due times once each`, async () => {
    const a = recordingDispatch(clock.now);
    const b = recordingDispatch(clock.now);
    // Small batches and several ticks per minute make the two instances interleave.
    const schedulerA = createScheduler(first.ctx, { dispatch: a.dispatch, now: clock.now, batchSize: 7 });
    const schedulerB = createScheduler(second.ctx, { dispatch: b.dispatch, now: clock.now, batchSize: 7 });
    for (let minute = 1; minute <= MINUTES; minute++) {
      clock.set(Date.UTC(2026, 0, 5, 10, minute));
      await Promise.all([schedulerA.drain(), schedulerB.drain(), schedulerA.drain(), schedulerB.drain()]);
    }
    const all = [...a.runs, ...b.runs];
    const keys = new Set(all.map((r) => `${r.origin.scheduleId}@${r.origin.dueAt}`));
    expect(all).toHaveLength(SCHEDULES * MINUTES);
    expect(keys.size).toBe(SCHEDULES * MINUTES);
    // Both instances did real work (the race was real), on SQLite and PostgreSQL alike.
    expect(a.runs.length).toBeGreaterThan(0);
    expect(b.runs.length).toBeGreaterThan(0);
  });
});
