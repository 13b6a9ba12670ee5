// What callers see of catalog entries and flows. Public views (widgets, tenants)
// never show how a connector runs, nor any secret; admin views add run specs.
import { maskConfig, passwordParams } from '../links/secrets.ts';
import { NAME_MEMBER } from './validate.ts';
import type { CatalogEntry, FlowSpec } from './types.ts';

export type EntryView = Record<string, unknown>;

export function publicEntry(entry: CatalogEntry): EntryView {
  const view: EntryView = {
    ...entry.extra,
    [NAME_MEMBER[entry.kind]]: entry.name,
    tags: entry.tags,
    domain: entry.domain,
    label: entry.label,
    type: entry.type,
    icon: entry.icon,
    auto_support: entry.auto_support,
    connect_ui_params: entry.connect_ui_params,
    config: maskConfig(entry.config, passwordParams(entry.connect_ui_params)),
    fieldMap: entry.fieldMap,
  };
  if (entry.tap_url !== undefined) view.tap_url = entry.tap_url;
  if (entry.auth_url !== undefined) view.auth_url = entry.auth_url;
  if (entry.client_id !== undefined) view.client_id = entry.client_id;
  if (entry.kind === 'connector') view.job_types = entry.job_types ?? [];
  return view;
}

export function adminEntry(entry: CatalogEntry, secretsEnc: string | null): EntryView {
  const view = publicEntry(entry);
  for (const key of ['revoke_url', 'identity_keys', 'discover', 'discover_on_link', 'run', 'read', 'write'] as const) {
    if (entry[key] !== undefined) view[key] = entry[key];
  }
  view.client_secret_set = secretsEnc !== null;
  return view;
}

export type FlowView = Record<string, unknown>;

export function publicFlow(flow: FlowSpec): FlowView {
  return {
    id: flow.id,
    name: flow.name,
    description: flow.description,
    version: flow.version,
    type: flow.type,
    flowIcon: flow.flowIcon,
    ...(flow.version === 1 ? { taps: flow.taps, targets: flow.targets } : { connectors: flow.connectors }),
    widgetOptions: flow.widgetOptions,
  };
}

function side(name: string | undefined, member: string, config: Record<string, unknown> | undefined) {
  return name === undefined ? null : { [member]: name, config: maskConfig(config ?? {}) };
}

/** The admin form is also the input form (configs masked; a masked secret sent back keeps its value). */
export function adminFlow(flow: FlowSpec): FlowView {
  const exportView = flow.version === 1
    ? side(flow.export?.name, 'target', flow.export?.config)
    : { read: side(flow.readExport?.name, 'connector', flow.readExport?.config), write: side(flow.writeSource?.name, 'connector', flow.writeSource?.config) };
  const etl = flow.etl.mode === 'command' ? { command: flow.etl.command } : flow.etl.mode;
  return { ...publicFlow(flow), export: exportView, etl, discover: flow.discover };
}
