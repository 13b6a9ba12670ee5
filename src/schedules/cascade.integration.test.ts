// The default-tenant cascade, jitter slots, link-body schedules and deletion on unlink/tenant delete.
import { beforeAll, expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { BadRequestError } from '../errors.ts';
import { describeEachStore, type TestEnv } from '../../test/harness.ts';
import { jitterOffsetMs } from './jitter.ts';
import {
  applyDefaultScheduleToTenant, deleteSchedulesForLink, deleteTenantSchedules, getSchedule, upsertScheduleFromLink,
} from './service.ts';
import { fakeClock, insertFlow, insertLink } from './testing.ts';

const clock = fakeClock(Date.UTC(2026, 0, 5, 10, 0, 30));

describeEachStore('schedules cascade and links', (h) => {
  let env: TestEnv;
  let flow = 0;
  const newFlow = async () => {
    const flowId = `flow${++flow}`;
    await insertFlow(h().ctx, env.envId, flowId);
    return flowId;
  };
  const scope = (tenant: string) => systemTenantScope(env.envId, tenant);
  const put = (flowId: string, tenant: string, body: unknown, query = '') =>
    h().request({ method: 'PUT', url: `/${env.envId}/${flowId}/${tenant}/jobs/schedule${query}`, key: env.envKey, body });
  const view = (flowId: string, tenant: string, connectorId?: string) =>
    getSchedule(h().ctx, scope(tenant), flowId, { connectorId }).then((v) => (v.exists ? v : null));
  const link = async (flowId: string, tenant: string, name = 'hubspot') => {
    await insertLink(h().ctx, env.envId, flowId, tenant, name);
    return applyDefaultScheduleToTenant(h().ctx, scope(tenant), flowId, name);
  };

  beforeAll(async () => {
    env = await h().createEnv();
  });

  it('copies the default schedule to a tenant that links later, in its own jitter slot', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const flowId = await newFlow();
    expect((await put(flowId, 'default', { schedule_expression: '0 * * * *', schedule_jitter_minutes: 30, overlap: 'queue', override_selected_tables: { deals: true } })).statusCode).toBe(200);
    expect(await link(flowId, 'acme')).toBe(1);
    const copy = await view(flowId, 'acme', 'hubspot');
    const slot = jitterOffsetMs('acme', 30);
    const expected = Date.UTC(2026, 0, 5, 10) + slot > clock.now() ? Date.UTC(2026, 0, 5, 10) + slot : Date.UTC(2026, 0, 5, 11) + slot;
    expect(copy).toMatchObject({
      ScheduleExpression: '0 * * * *', State: 'ENABLED', inherited: true, jitter_minutes: 30, overlap: 'queue',
      connector_id: 'hubspot', override_selected_tables: { deals: true }, next_run_at: new Date(expected).toISOString(),
    });
    // Linking again (or another process doing it) keeps the same slot.
    await applyDefaultScheduleToTenant(h().ctx, scope('acme'), flowId, 'hubspot');
    expect((await view(flowId, 'acme', 'hubspot'))?.next_run_at).toBe(copy?.next_run_at);
  });

  it('spreads many tenants across the jitter window', async () => {
    const flowId = await newFlow();
    await put(flowId, 'default', { schedule_expression: '0 * * * *', schedule_jitter_minutes: 60 });
    const minutes = new Set<number>();
    for (let i = 0; i < 120; i++) {
      await link(flowId, `spread${i}`);
      minutes.add(new Date((await view(flowId, `spread${i}`))?.next_run_at ?? 0).getUTCMinutes());
    }
    expect(minutes.size).toBeGreaterThan(45); // 120 tenants over 60 one-minute buckets
  });

  it('never replaces a schedule of the tenant\'s own', async () => {
    const flowId = await newFlow();
    await put(flowId, 'own', { schedule_expression: '@daily' });
    await put(flowId, 'default', { schedule_expression: '@hourly' });
    expect(await link(flowId, 'own')).toBe(0);
    expect(await view(flowId, 'own')).toMatchObject({ ScheduleExpression: '@daily', inherited: false });
  });

  it('cascades a DISABLED default as an enabled copy; the default tenant itself has no next run', async () => {
    clock.set(Date.UTC(2026, 0, 5, 10, 0, 30));
    const flowId = await newFlow();
    await put(flowId, 'default', { schedule_expression: '* * * * *', state: 'DISABLED' });
    await link(flowId, 'beta');
    expect(await view(flowId, 'beta')).toMatchObject({ State: 'ENABLED', inherited: true });
    // A disabled schedule has no next run, so the due scan (state ENABLED, next_run_at <= now) never reads it.
    expect(await view(flowId, 'default')).toMatchObject({ State: 'DISABLED', next_run_at: null });
    expect((await view(flowId, 'beta'))?.next_run_at).toBe('2026-01-05T10:01:00.000Z');
  });

  it('leaves tenants linked earlier alone unless apply_to_existing=true', async () => {
    const flowId = await newFlow();
    await insertLink(h().ctx, env.envId, flowId, 'early1', 'hubspot');
    await insertLink(h().ctx, env.envId, flowId, 'early2', 'hubspot');
    await insertLink(h().ctx, env.envId, flowId, 'mine', 'hubspot');
    await put(flowId, 'mine', { schedule_expression: '@weekly' });
    await put(flowId, 'default', { schedule_expression: '@hourly' });
    expect(await view(flowId, 'early1')).toBeNull();
    const res = await put(flowId, 'default', { schedule_expression: '@daily' }, '?apply_to_existing=true');
    expect(res.json().applied_to_tenants).toBe(2);
    expect(await view(flowId, 'early1')).toMatchObject({ ScheduleExpression: '@daily', inherited: true });
    expect(await view(flowId, 'mine')).toMatchObject({ ScheduleExpression: '@weekly', inherited: false });
    // Inherited copies follow a later apply_to_existing (given in the body this time).
    await put(flowId, 'default', { schedule_expression: '@monthly', apply_to_existing: true });
    expect((await view(flowId, 'early2'))?.ScheduleExpression).toBe('@monthly');
    const other = await put(flowId, 'mine', { schedule_expression: '@daily' }, '?apply_to_existing=true');
    expect(other.statusCode).toBe(400);
  });

  it('applies a connector-specific default only to tenants linking that connector', async () => {
    const flowId = await newFlow();
    await put(flowId, 'default', { schedule_expression: '@hourly', connector_id: 'salesforce' });
    expect(await link(flowId, 'c1', 'hubspot')).toBe(0);
    expect(await link(flowId, 'c2', 'salesforce')).toBe(1);
  });

  it('stores a link body schedule: create, change state only, ignore an empty one, reject a bad one', async () => {
    const flowId = await newFlow();
    const created = await upsertScheduleFromLink(h().ctx, scope('lnk'), flowId, { connectorId: 'hubspot', jobType: 'read', schedule: { schedule_expression: '*/30 * * * *' } });
    expect(created).toMatchObject({ ScheduleExpression: '*/30 * * * *', State: 'ENABLED', connector_id: 'hubspot' });
    await upsertScheduleFromLink(h().ctx, scope('lnk'), flowId, { connectorId: 'hubspot', jobType: 'read', schedule: { state: 'DISABLED' } });
    expect(await view(flowId, 'lnk')).toMatchObject({ ScheduleExpression: '*/30 * * * *', State: 'DISABLED', next_run_at: null });
    expect(await upsertScheduleFromLink(h().ctx, scope('none'), flowId, { connectorId: 'x', jobType: 'read', schedule: { state: 'ENABLED' } })).toBeNull();
    await expect(upsertScheduleFromLink(h().ctx, scope('lnk'), flowId, { connectorId: 'hubspot', jobType: 'read', schedule: { schedule_expression: 'every day' } }))
      .rejects.toThrow(BadRequestError);
  });

  it('deletes a link\'s schedules on unlink and all of a tenant\'s on tenant deletion', async () => {
    const flowId = await newFlow();
    const db = h().ctx.db.kysely;
    await insertLink(h().ctx, env.envId, flowId, 'gone', 'hubspot');
    await insertLink(h().ctx, env.envId, flowId, 'gone', 'salesforce');
    await put(flowId, 'gone', { schedule_expression: '@hourly', connector_id: 'hubspot' });
    await put(flowId, 'gone', { schedule_expression: '@hourly', connector_id: 'salesforce' });
    expect(await deleteSchedulesForLink(db, scope('gone'), flowId, 'hubspot')).toBe(1);
    expect(await view(flowId, 'gone', 'salesforce')).not.toBeNull();
    expect(await deleteTenantSchedules(db, scope('gone'))).toBe(1);
    expect(await view(flowId, 'gone', 'salesforce')).toBeNull();
    // A connector-less schedule goes with the tenant's last link.
    await put(flowId, 'solo', { schedule_expression: '@hourly' });
    expect(await deleteSchedulesForLink(db, scope('solo'), flowId, 'hubspot')).toBe(1);
  });
}, { now: clock.now });
