// The schedule API: PUT/GET/DELETE …/jobs/schedule, validation errors, selection.
import { beforeAll, expect, it } from 'vitest';
import { describeEachStore, type TestEnv } from '../../test/harness.ts';
import { fakeClock, insertFlow } from './testing.ts';

const START = Date.UTC(2026, 0, 5, 10, 0, 30); // Monday 10:00:30Z
const clock = fakeClock(START);

describeEachStore('schedules API', (h) => {
  let env: TestEnv;
  const url = (tenant = 'acme', query = '') => `/${env.envId}/flow1/${tenant}/jobs/schedule${query}`;
  const put = (body: unknown, tenant = 'acme', query = '') => h().request({ method: 'PUT', url: url(tenant, query), key: env.envKey, body });
  const get = (tenant = 'acme', query = '') => h().request({ method: 'GET', url: url(tenant, query), key: env.envKey });

  beforeAll(async () => {
    env = await h().createEnv();
    await insertFlow(h().ctx, env.envId, 'flow1');
  });

  it('creates a schedule and answers it in the form clients read', async () => {
    const res = await put({ schedule_expression: '*/15 * * * *' });
    expect(res.statusCode).toBe(200);
    const view = (await get()).json();
    expect(view).toMatchObject({
      ScheduleExpression: '*/15 * * * *', State: 'ENABLED', timezone: 'UTC', overlap: 'skip', jitter_minutes: null,
      connector_id: null, job_type: 'read', next_run_at: '2026-01-05T10:15:00.000Z', last_run_at: null,
    });
  });

  it.each([
    ['*/5 * * * *', '2026-01-05T10:05:00.000Z'],
    ['15 */5 * * * *', '2026-01-05T10:00:15.000Z'.replace('10:00:15', '10:05:15')],
    ['cron(0 12 * * ? *)', '2026-01-05T12:00:00.000Z'],
    ['cron(15 10 ? * MON-FRI *)', '2026-01-05T10:15:00.000Z'],
    ['@hourly', '2026-01-05T11:00:00.000Z'],
    ['@daily', '2026-01-06T00:00:00.000Z'],
    ['rate(5 minutes)', '2026-01-05T10:05:00.000Z'],
    ['rate(2 hours)', '2026-01-05T12:00:00.000Z'],
    ['rate(1 day)', '2026-01-06T00:00:00.000Z'],
  ])('accepts %s', async (expression, next) => {
    const tenant = `form${Math.abs(hash(expression))}`;
    expect((await put({ schedule_expression: expression }, tenant)).statusCode).toBe(200);
    expect((await get(tenant)).json()).toMatchObject({ ScheduleExpression: expression, next_run_at: next });
  });

  it.each([
    ['61 * * * *', 'Invalid cron expression: "61 * * * *": minute value 61 out of range 0-59'],
    ['* * *', 'got 3'],
    ['cron(0 12 1 * MON *)', 'day-of-month and day-of-week cannot both be set'],
    ['0 0 30 2 *', 'never matches any date'],
    ['', 'expression is empty'],
    ['@reboot', 'unknown preset'],
    ['rate(5 weeks)', 'Invalid rate expression: "rate(5 weeks)": unit "weeks"'],
  ])('rejects %s with 400 naming the problem', async (expression, message) => {
    const res = await put({ schedule_expression: expression });
    expect(res.statusCode).toBe(400);
    expect(res.json().Code).toBe('BadRequestError');
    expect(res.json().Message).toContain(message);
  });

  it('rejects a missing expression, an unknown time zone and an unknown overlap', async () => {
    for (const body of [{}, { schedule_expression: '@daily', timezone: 'Mars/Olympus' }, { schedule_expression: '@daily', overlap: 'pile' }]) {
      const res = await put(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().Code).toBe('BadRequestError');
    }
    expect((await put({ schedule_expression: '@daily', timezone: 'Mars/Olympus' })).json().Message).toContain('Invalid timezone');
  });

  it('accepts jitter 1-720 on the default tenant only; null clears it', async () => {
    for (const bad of [0, 721, 1.5, -3]) {
      const res = await put({ schedule_expression: '@hourly', schedule_jitter_minutes: bad }, 'default');
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json()).toMatchObject({ Code: 'BadRequestError', Message: expect.stringContaining('1 to 720') });
    }
    const other = await put({ schedule_expression: '@hourly', schedule_jitter_minutes: 30 }, 'acme');
    expect(other.statusCode).toBe(400);
    expect(other.json().Message).toContain('"default" tenant');
    expect((await put({ schedule_expression: '@hourly', schedule_jitter_minutes: 720 }, 'default')).statusCode).toBe(200);
    expect((await get('default')).json().jitter_minutes).toBe(720);
    await put({ schedule_expression: '@hourly', state: 'DISABLED' }, 'default');
    expect((await get('default')).json()).toMatchObject({ jitter_minutes: 720, State: 'DISABLED', next_run_at: null });
    expect((await put({ schedule_expression: '@hourly', schedule_jitter_minutes: null }, 'default')).statusCode).toBe(200);
    expect((await get('default')).json()).toMatchObject({ jitter_minutes: null, State: 'ENABLED' });
  });

  it('reads cron fields in the schedule time zone', async () => {
    await put({ schedule_expression: '0 9 * * *', timezone: 'America/New_York' }, 'nyc');
    expect((await get('nyc')).json()).toMatchObject({ timezone: 'America/New_York', next_run_at: '2026-01-05T14:00:00.000Z' });
  });

  it('stores overrides sealed and masks environment variables unless config=true', async () => {
    await put({
      schedule_expression: '@daily', override_start_date: '2025-01-01T00:00:00Z', override_selected_tables: { deals: true },
      override_field_map: { deals: { name: 'deals' } }, environment_variables: { API_TOKEN: 's3cret' },
    }, 'over');
    const view = (await get('over')).json();
    expect(view).toMatchObject({ override_start_date: '2025-01-01T00:00:00Z', override_selected_tables: { deals: true }, environment_variables: { API_TOKEN: '****' } });
    const row = await h().ctx.db.kysely.selectFrom('schedules').select('overrides_enc').where('env_id', '=', env.envId).where('tenant', '=', 'over').executeTakeFirstOrThrow();
    expect(row.overrides_enc).not.toContain('s3cret');
    expect((await get('over', '?config=true')).json().environment_variables).toEqual({ API_TOKEN: 's3cret' });
    const publicRead = await h().request({ method: 'GET', url: url('over', '?config=true'), key: env.publicKey });
    expect(publicRead.json().environment_variables).toEqual({ API_TOKEN: '****' });
    // A later PUT without the overrides keeps them; null clears one.
    await put({ schedule_expression: '@hourly', environment_variables: null }, 'over');
    expect((await get('over')).json()).toMatchObject({ override_selected_tables: { deals: true }, environment_variables: null });
  });

  it('keeps one schedule per connector and job type, selected by connector_id/job_type', async () => {
    await put({ schedule_expression: '@hourly', connector_id: 'hubspot' }, 'multi');
    await put({ schedule_expression: '@daily', connector_id: 'salesforce' }, 'multi');
    await put({ schedule_expression: '@weekly', connector_id: 'hubspot', job_type: 'write' }, 'multi');
    expect((await get('multi', '?connector_id=salesforce')).json().ScheduleExpression).toBe('@daily');
    expect((await get('multi', '?connector_id=hubspot&job_type=write')).json().ScheduleExpression).toBe('@weekly');
    const ambiguous = await get('multi');
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().Message).toContain('pass connector_id');
    const list = await h().request({ method: 'GET', url: `${url('multi')}s`, key: env.envKey });
    expect(list.json().schedules).toHaveLength(3);
    const del = await h().request({ method: 'DELETE', url: url('multi', '?connector_id=salesforce'), key: env.envKey });
    expect(del.statusCode).toBe(200);
    expect(del.json().deleted).toBe(true);
    expect((await get('multi', '?connector_id=salesforce')).json()).toMatchObject({ State: 'DISABLED', exists: false });
  });

  it('answers 404 for an unknown flow; a tenant without a schedule reads as DISABLED and deletes idempotently', async () => {
    const res = await h().request({ method: 'PUT', url: `/${env.envId}/nope/acme/jobs/schedule`, key: env.envKey, body: { schedule_expression: '@daily' } });
    expect(res.statusCode).toBe(404);
    expect((await h().request({ method: 'GET', url: `/${env.envId}/nope/acme/jobs/schedule`, key: env.envKey })).statusCode).toBe(404);
    const none = await get('nobody');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toMatchObject({ ScheduleExpression: null, State: 'DISABLED', exists: false, tenant: 'nobody' });
    const del = await h().request({ method: 'DELETE', url: url('nobody'), key: env.envKey });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ deleted: false, id: null });
  });

  it('requires an API key', async () => {
    expect((await h().request({ method: 'GET', url: url() })).statusCode).toBe(401);
  });
}, { now: clock.now });

function hash(text: string): number {
  let value = 0;
  for (const char of text) value = (value * 31 + char.charCodeAt(0)) | 0;
  return value;
}
