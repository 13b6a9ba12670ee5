// Checks on link bodies and configs. Pure: throws Error with a precise message
// (the service turns it into a 400).
import { TENANT_ID_PATTERN } from '../catalog/schemas.ts';
import type { CatalogEntry } from '../catalog/types.ts';
import { parseFieldMap, type FieldMap } from './field-map.ts';
import type { LinkKind } from './types.ts';

const TENANT_ID = new RegExp(TENANT_ID_PATTERN, 'u');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface SymlinkRequest {
  flowId: string;
  tenant: string | undefined;
  /** Name of the original link; undefined = the same name as this link. */
  entity: string | undefined;
  kind: LinkKind | undefined;
}

export interface LinkRequest {
  /** undefined for a v2 body without connector.id. */
  name: string | undefined;
  config: Record<string, unknown> | undefined;
  symlink: SymlinkRequest | undefined;
  /** undefined: not given (use the default); null: no field map. */
  fieldMap: FieldMap | null | undefined;
}

/** The body member holding the link, and the member of it that names the entry. */
export const BODY_MEMBERS: Record<LinkKind, { outer: string; name: string }> = {
  source: { outer: 'source', name: 'tap' },
  target: { outer: 'target', name: 'target' },
  connector: { outer: 'connector', name: 'id' },
};

function parseSymlink(value: unknown, kind: LinkKind): SymlinkRequest | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Error('"symlink" must be an object with "id" (the flow holding the credentials)');
  if (value.env_id !== undefined) throw new Error('Cross-environment symlinks are impossible: remove "symlink.env_id"');
  const { id, tenant, entity, type } = value;
  if (typeof id !== 'string' || id === '') throw new Error('"symlink.id" must name the flow that holds the linked credentials');
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant.length > 128 || !TENANT_ID.test(tenant))) throw new Error('"symlink.tenant" must be a tenant id');
  if (entity !== undefined && (typeof entity !== 'string' || entity === '')) throw new Error('"symlink.entity" must name the linked source or connector');
  // Clients send back a whole flow item (see GET /entity/...) whose `type` is the flow's:
  // only the link kinds mean "the kind of the original link", and only for v2 connectors.
  const originalKind = kind === 'connector' && (type === 'source' || type === 'connector' || type === 'target') ? type : undefined;
  return { flowId: id, tenant: tenant as string | undefined, entity: entity as string | undefined, kind: originalKind };
}

export function parseFieldMapMember(body: Record<string, unknown>): FieldMap | null | undefined {
  if (!Object.hasOwn(body, 'field_map') || body.field_map === undefined) return undefined;
  return parseFieldMap(body.field_map);
}

/** Extra members of the link object (clients send the whole catalog entry back) are ignored. */
export function parseLinkBody(kind: LinkKind, body: unknown): LinkRequest {
  if (!isObject(body)) throw new Error('The body must be a JSON object');
  const members = BODY_MEMBERS[kind];
  const inner = body[members.outer];
  if (!isObject(inner)) throw new Error(`The body needs a "${members.outer}" object`);
  const name = inner[members.name];
  if (name !== undefined && (typeof name !== 'string' || name === '')) throw new Error(`"${members.outer}.${members.name}" must be a non-empty string`);
  if (name === undefined && kind !== 'connector') throw new Error(`"${members.outer}.${members.name}" is required`);
  const config = inner.config ?? undefined;
  if (config !== undefined && !isObject(config)) throw new Error(`"${members.outer}.config" must be an object`);
  const symlink = parseSymlink(inner.symlink, kind);
  if (symlink && config !== undefined && Object.keys(config).length > 0) {
    throw new Error('A symlinked link uses the config of the original link: omit "config"');
  }
  return { name: name as string | undefined, config: config as Record<string, unknown> | undefined, symlink, fieldMap: parseFieldMapMember(body) };
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** Required connect_ui_params (all but those with required: false) missing from the effective config. */
export function missingParams(entry: CatalogEntry, config: Record<string, unknown>): string[] {
  const effective = { ...entry.config, ...config };
  return Object.entries(entry.connect_ui_params)
    .filter(([key, param]) => param.required !== false && missing(effective[key]))
    .map(([key]) => key);
}

/** Config keys that identify the account behind a link, unless the catalog entry names its own. */
export const DEFAULT_IDENTITY_KEYS = [
  'account', 'account_id', 'subdomain', 'domain', 'host', 'hostname', 'instance_url', 'base_url', 'api_url', 'site',
  'shop', 'database', 'dbname', 'user', 'username', 'email', 'realm_id', 'company_id', 'org_id', 'organization_id',
  'workspace', 'workspace_id',
];

/** True when the config now points at another account: the stored state (bookmarks) no longer applies. */
export function identityChanged(entry: CatalogEntry | undefined, before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  const keys = entry?.identity_keys ?? DEFAULT_IDENTITY_KEYS;
  return keys.some((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null));
}

/** The parent of a subtenant (`1414_1` → `1414`); a tenant without a numeric suffix is its own parent. */
export function parentTenant(tenant: string): string {
  const match = /^(.+)_\d+$/.exec(tenant);
  return match ? match[1] as string : tenant;
}

/** Tenants of one family: the same tenant, a parent and its subtenants, or subtenants of one parent. */
export function sameTenantFamily(a: string, b: string): boolean {
  return parentTenant(a) === parentTenant(b);
}
