// What callers see of a tenant's links: the catalog entry's public members, the
// link's own, and its config — masked unless the caller may see secrets.
import type { CatalogEntry } from '../catalog/types.ts';
import { NAME_MEMBER } from '../catalog/validate.ts';
import type { LiveConfig } from './resolve.ts';
import { maskConfig, passwordParams } from './secrets.ts';
import type { LinkRow } from './types.ts';

export interface ViewOptions {
  unmasked: boolean;
  catalog: boolean;
}

const ENTRY_MEMBERS = ['domain', 'label', 'tap_url', 'auth_url', 'icon', 'type', 'client_id', 'tags'] as const;

export function linkView(link: LinkRow, entry: CatalogEntry | undefined, live: LiveConfig, opts: ViewOptions): Record<string, unknown> {
  const view: Record<string, unknown> = { [NAME_MEMBER[link.kind]]: link.name, tenant_id: link.tenant, flow_id: link.flowId };
  if (entry) {
    for (const key of ENTRY_MEMBERS) if (entry[key] !== undefined) view[key] = entry[key];
  } else {
    view.label = link.name;
  }
  const config = { ...(entry?.config ?? {}), ...live.config };
  Object.assign(view, {
    fieldMap: link.fieldMap,
    config: opts.unmasked ? config : maskConfig(config, passwordParams(entry?.connect_ui_params)),
    disconnected: live.disconnected || entry === undefined,
    isReconnecting: link.isReconnecting,
    symlink: link.symlink ? { id: link.symlink.flow_id, tenant: link.symlink.tenant, entity: link.symlink.name, ...(link.symlink.kind ? { type: link.symlink.kind } : {}) } : null,
    has_state: link.state !== null && link.state !== undefined,
    // The widget's field-map page waits while this is DISCOVER_STARTED and shows an error on DISCOVER_FAILED.
    discover_task_status: link.kind === 'target' ? null : link.discovery?.status ?? null,
    created_at: new Date(link.createdAt).toISOString(),
    updated_at: new Date(link.updatedAt).toISOString(),
  });
  if (live.error) view.error = { message: live.error };
  else if (!entry) view.error = { message: `"${link.name}" is no longer in the environment's catalog` };
  if (opts.catalog) view.catalog = link.catalog?.catalog ?? null;
  return view;
}
