// The connector catalog of an environment (available sources, targets and v2
// connectors) and its flows, as stored and as the services use them.
import type { FieldMap } from '../links/field-map.ts';

export type RunSpec = { builtin: string } | { command: string; args?: string[] };
export type CatalogKind = 'source' | 'target' | 'connector';
export type JobType = 'read' | 'write';

export interface ConnectUiParam {
  label: string;
  description: string;
  type?: string;
  /** Tapline extension: parameters are required unless this is false. */
  required?: boolean;
  [extra: string]: unknown;
}

/** One catalog entry. `name` is the tap, target or connector id. */
export interface CatalogEntry {
  kind: CatalogKind;
  name: string;
  tags: string[];
  domain: string;
  label: string;
  type: string;
  icon: string;
  auto_support: boolean;
  connect_ui_params: Record<string, ConnectUiParam>;
  config: Record<string, unknown>;
  fieldMap: FieldMap | null;
  /** OAuth: authorization URL, token URL, client id, revocation URL (RFC 7009). */
  tap_url?: string;
  auth_url?: string;
  client_id?: string;
  revoke_url?: string;
  /** Config keys whose change means "another account" (clears the stored state on relink). */
  identity_keys?: string[];
  discover?: 'auto' | 'always';
  /** Sources and connectors: discover in the background right after a link (default true). */
  discover_on_link?: boolean;
  /** How it runs: sources and targets have `run`; connectors have `read` and/or `write` (or `run` for both). */
  run?: RunSpec;
  read?: RunSpec;
  write?: RunSpec;
  /** Connectors: which job types they support. */
  job_types?: JobType[];
  /** Extra public members given by the operator (shown as is). */
  extra: Record<string, unknown>;
}

export interface CatalogSecrets {
  client_secret?: string;
}

export interface WidgetOptions {
  allowRunJobs: boolean;
  allowRunWriteJobs: boolean;
  allowFullSyncJobs: boolean;
  allowSyncSchedule: boolean;
}

/** The export side of a flow. v1: the target every tenant exports to. */
export interface ExportSide {
  /** v1: an available target; v2: an available connector. */
  name: string;
  config: Record<string, unknown>;
}

export type EtlSetting = { mode: 'none' } | { mode: 'field_map' } | { mode: 'command'; command: string[] };

export interface FlowSpec {
  id: string;
  name: string;
  description: string;
  version: 1 | 2;
  /** null for source flows: clients (the hotglue widget) take a flow with a truthy type for a target flow. */
  type: string | null;
  flowIcon: string | null;
  taps: string[];
  targets: string[];
  connectors: string[];
  widgetOptions: WidgetOptions;
  /** v1 export target (null = no export). */
  export: ExportSide | null;
  /** v2: the connector that receives read jobs' data, and the one that feeds write jobs. */
  readExport: ExportSide | null;
  writeSource: ExportSide | null;
  etl: EtlSetting;
  discover: 'auto' | 'always';
}
