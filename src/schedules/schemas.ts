// Route schemas for schedules. Ranges the API description states (jitter 1-720, the
// expression syntax) are checked in validate.ts so the 400 names the problem precisely.
import { Type, type Static } from 'typebox';

export const TenantParams = Type.Object({
  env_id: Type.String({ minLength: 1 }),
  flow_id: Type.String({ minLength: 1 }),
  tenant: Type.String({ minLength: 1 }),
});

const JobType = Type.Union([Type.Literal('read'), Type.Literal('write')], { description: 'v2 flows: read (default) or write' });
const State = Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED')]);
// Null first: with coerceTypes, ajv would otherwise turn null into 0 or "" for the first branch.
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([Type.Null(), schema]);

export const ScheduleBody = Type.Object({
  schedule_expression: Type.String({ description: 'cron (5 or 6 fields), cron(…) with year, @hourly-style preset, or rate(N minutes|hours|days)' }),
  state: Type.Optional(State),
  connector_id: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  job_type: Type.Optional(JobType),
  override_start_date: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  override_selected_tables: Type.Optional(Nullable(Type.Record(Type.String(), Type.Boolean()))),
  override_field_map: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  environment_variables: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  // Unknown, checked in validate.ts: ajv's type coercion would turn 0 into null (or null into 0).
  schedule_jitter_minutes: Type.Optional(Type.Unknown({ description: 'integer 1 to 720, default tenant only; null clears' })),
  timezone: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'Tapline extension: IANA time zone, default UTC' }))),
  overlap: Type.Optional(Type.Union([Type.Literal('skip'), Type.Literal('queue'), Type.Literal('parallel')], {
    description: 'Tapline extension: what to do when the previous job is still active (default skip)',
  })),
  apply_to_existing: Type.Optional(Type.Boolean({ description: 'Tapline extension, default tenant only: also copy to tenants already linked' })),
});
export type ScheduleBody = Static<typeof ScheduleBody>;

export const PutQuery = Type.Object({
  apply_to_existing: Type.Optional(Type.Boolean()),
  token: Type.Optional(Type.String()),
});

export const SelectQuery = Type.Object({
  connector_id: Type.Optional(Type.String({ maxLength: 200 })),
  job_type: Type.Optional(JobType),
  config: Type.Optional(Type.Boolean({ description: 'Tapline extension: unmasked environment_variables (needs secrets permission)' })),
  token: Type.Optional(Type.String()),
});
export type SelectQuery = Static<typeof SelectQuery>;
