// Row types of every table. Timestamps are epoch milliseconds (bigint in PostgreSQL,
// integer in SQLite) so both stores compare and sort them the same way; JSON
// members are text; booleans are 0/1 integers.
import type { Generated } from 'kysely';

export interface SystemSettingsTable {
  key: string;
  value: string;
}

export interface EnvironmentsTable {
  env_id: string;
  /** JSON: EnvironmentSettings (no secrets). */
  settings: string;
  /** Encrypted JSON list of webhook secrets (newest first). */
  webhook_secrets_enc: string | null;
  signing_public_key: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  env_id: string;
  type: string;
  role: string | null;
  user_name: string | null;
  /** First characters of the key, safe to show (identifies it, cannot be used). */
  prefix: string;
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface CatalogEntriesTable {
  env_id: string;
  /** 'source' | 'target' | 'connector' */
  kind: string;
  name: string;
  /** JSON of the public catalog entry and its run spec. */
  entry: string;
  /** Encrypted JSON of the entry's secrets (OAuth client secret). */
  secrets_enc: string | null;
  created_at: number;
  updated_at: number;
}

export interface FlowsTable {
  env_id: string;
  flow_id: string;
  spec: string;
  created_at: number;
  updated_at: number;
}

export interface TenantsTable {
  env_id: string;
  tenant: string;
  created_at: number;
}

export interface LinksTable {
  env_id: string;
  flow_id: string;
  tenant: string;
  /** 'source' | 'target' | 'connector' */
  kind: string;
  name: string;
  config_enc: string | null;
  field_map: string | null;
  catalog: string | null;
  state: string | null;
  symlink: string | null;
  created_at: number;
  updated_at: number;
  /** Latest discovery outside jobs (011_discoveries): DISCOVER_STARTED | DISCOVER_SUCCESS | DISCOVER_FAILED. */
  discover_status?: string | null;
  discover_message?: string | null;
  discover_token?: string | null;
  discover_started_at?: number | null;
  discover_finished_at?: number | null;
  discover_heartbeat_at?: number | null;
  /** 012_link_flags: 1 while an OAuth reconnect is under way. */
  is_reconnecting?: number;
}

export interface JobsTable {
  job_id: string;
  env_id: string;
  flow_id: string;
  tenant: string;
  flow_version: number;
  tap: string;
  connector_id: string | null;
  job_type: string | null;
  job_name: string;
  status: string;
  message: string | null;
  started_by: string;
  scheduled_job: number;
  schedule_id: string | null;
  s3_root: string;
  start_time: number;
  last_updated: number;
  finished_at: number | null;
  processed_rows: number;
  state: string | null;
  /** Encrypted JSON of the run request (overrides may hold credentials). */
  request_enc: string;
  export_details: string | null;
  sync_type: string;
  worker_id: string | null;
  heartbeat_at: number | null;
  idempotency_key: string | null;
  queued_job_id: number | null;
  created_at: number;
  /** 020_job_metrics: JSON {stream: records}, moving during the sync. */
  record_counts?: string | null;
}

export interface QueuedJobsTable {
  id: Generated<number>;
  env_id: string;
  tenant_id: string;
  flow_id: string;
  /** The tap or connector the job is for: jobs of one tenant/flow/connector queue together. */
  connector: string;
  job_type: string | null;
  status: string;
  job_name: string | null;
  request_enc: string;
  job_id: string | null;
  schedule_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface SchedulesTable {
  id: string;
  env_id: string;
  flow_id: string;
  tenant: string;
  /** '' when the schedule is for the tenant's only source. */
  connector_id: string;
  job_type: string;
  expression: string;
  timezone: string;
  state: string;
  jitter_minutes: number | null;
  overlap: string;
  overrides_enc: string | null;
  next_run_at: number | null;
  last_run_at: number | null;
  last_job_id: string | null;
  skipped_runs: number;
  /** 1 when the row is a copy of the flow's `default` tenant schedule (cascade). */
  inherited: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookEventsTable {
  id: Generated<number>;
  env_id: string;
  event_type: string;
  /** Deliveries with the same key to the same URL go out in id order. */
  ordering_key: string;
  url: string;
  secrets_enc: string | null;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** Start of the first attempt; the retry window counts from it (040). */
  first_attempt_at: number | null;
  /** 'environment' | 'override' (a job's override_lifecycle_webhook) (040). */
  destination: Generated<string>;
  /** Id of the delivery this row re-sends (040). */
  redelivery_of: number | null;
}

export interface Database {
  system_settings: SystemSettingsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  catalog_entries: CatalogEntriesTable;
  flows: FlowsTable;
  tenants: TenantsTable;
  links: LinksTable;
  jobs: JobsTable;
  queued_jobs: QueuedJobsTable;
  schedules: SchedulesTable;
  webhook_events: WebhookEventsTable;
}
