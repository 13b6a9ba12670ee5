// Turns an operator's catalog entry (JSON from the admin API or a --catalog file)
// into a CatalogEntry plus its secrets. Pure: throws Error with a precise message.
import { parseFieldMap } from '../links/field-map.ts';
import type { CatalogEntry, CatalogKind, CatalogSecrets, ConnectUiParam, JobType, RunSpec } from './types.ts';

/** The member that names an entry of each kind, as in the API description. */
export const NAME_MEMBER: Record<CatalogKind, string> = { source: 'tap', target: 'target', connector: 'id' };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;
const KNOWN = new Set(['tap', 'target', 'id', 'name', 'tags', 'domain', 'label', 'type', 'icon', 'auto_support',
  'connect_ui_params', 'config', 'fieldMap', 'tap_url', 'auth_url', 'client_id', 'client_secret', 'revoke_url',
  'identity_keys', 'discover', 'discover_on_link', 'run', 'read', 'write', 'job_types', 'client_secret_set']);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(input: Json, key: string, fallback: string): string {
  const v = input[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') throw new Error(`"${key}" must be a string`);
  return v;
}

function optStr(input: Json, key: string): string | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new Error(`"${key}" must be a non-empty string`);
  return v;
}

function strings(input: Json, key: string): string[] | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`"${key}" must be an array of strings`);
  return v as string[];
}

export function parseRunSpec(value: unknown, what: string): RunSpec | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Error(`"${what}" must be {"builtin": name} or {"command": path, "args": [...]}`);
  if (typeof value.builtin === 'string' && value.builtin !== '' && value.command === undefined) return { builtin: value.builtin };
  if (typeof value.command === 'string' && value.command !== '' && value.builtin === undefined) {
    const args = value.args ?? [];
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new Error(`"${what}.args" must be an array of strings`);
    return { command: value.command, args: args as string[] };
  }
  throw new Error(`"${what}" must be {"builtin": name} or {"command": path, "args": [...]}`);
}

function parseParams(value: unknown): Record<string, ConnectUiParam> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new Error('"connect_ui_params" must be an object');
  const params: Record<string, ConnectUiParam> = {};
  for (const [key, p] of Object.entries(value)) {
    if (!isObject(p)) throw new Error(`connect_ui_params["${key}"] must be an object with "label" and "description"`);
    if (p.type !== undefined && typeof p.type !== 'string') throw new Error(`connect_ui_params["${key}"].type must be a string`);
    if (p.required !== undefined && typeof p.required !== 'boolean') throw new Error(`connect_ui_params["${key}"].required must be a boolean`);
    params[key] = { ...p, label: str(p, 'label', key), description: str(p, 'description', '') };
  }
  return params;
}

function parseJobTypes(input: Json, read?: RunSpec, write?: RunSpec): JobType[] {
  const given = strings(input, 'job_types');
  if (given) {
    for (const t of given) if (t !== 'read' && t !== 'write') throw new Error('"job_types" values must be "read" or "write"');
    if (given.length === 0) throw new Error('"job_types" must name at least one job type');
    return [...new Set(given)] as JobType[];
  }
  const types: JobType[] = [];
  if (read) types.push('read');
  if (write) types.push('write');
  return types;
}

function runOf(kind: CatalogKind, input: Json): Pick<CatalogEntry, 'run' | 'read' | 'write' | 'job_types'> {
  const run = parseRunSpec(input.run, 'run');
  if (kind !== 'connector') {
    if (!run) throw new Error(`a catalog ${kind} needs "run": {"builtin": name} or {"command": path, "args": [...]}`);
    return { run };
  }
  const read = parseRunSpec(input.read, 'read') ?? run;
  const write = parseRunSpec(input.write, 'write') ?? run;
  const job_types = parseJobTypes(input, read, write);
  if (job_types.length === 0) throw new Error('a catalog connector needs "read" and/or "write" run specs (or "run" for both)');
  for (const t of job_types) {
    if (!(t === 'read' ? read : write)) throw new Error(`connector supports "${t}" jobs but has no "${t}" run spec (or "run")`);
  }
  return { ...(run ? { run } : {}), ...(read ? { read } : {}), ...(write ? { write } : {}), job_types };
}

function entryName(kind: CatalogKind, input: Json): string {
  const member = NAME_MEMBER[kind];
  const name = input[member] ?? input.name;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new Error(`"${member}" must be 1-128 characters: letters, digits, "_", ".", ":", "@", "-" (not first)`);
  }
  return name;
}

export function parseCatalogEntry(kind: CatalogKind, input: unknown): { entry: CatalogEntry; secrets: CatalogSecrets | null } {
  if (!isObject(input)) throw new Error(`a catalog ${kind} must be an object`);
  const name = entryName(kind, input);
  const config = input.config ?? {};
  if (!isObject(config)) throw new Error('"config" must be an object');
  const autoSupport = input.auto_support ?? true;
  if (typeof autoSupport !== 'boolean') throw new Error('"auto_support" must be a boolean');
  const discover = input.discover ?? 'auto';
  if (discover !== 'auto' && discover !== 'always') throw new Error('"discover" must be "auto" or "always"');
  const discoverOnLink = input.discover_on_link ?? undefined;
  if (discoverOnLink !== undefined && typeof discoverOnLink !== 'boolean') throw new Error('"discover_on_link" must be a boolean');
  let fieldMap;
  try {
    fieldMap = input.fieldMap === undefined ? null : parseFieldMap(input.fieldMap);
  } catch (error) {
    throw new Error(`"fieldMap": ${(error as Error).message}`);
  }
  const extra: Json = {};
  for (const [k, v] of Object.entries(input)) if (!KNOWN.has(k)) extra[k] = v;
  const entry: CatalogEntry = {
    kind, name,
    tags: strings(input, 'tags') ?? [],
    domain: str(input, 'domain', ''),
    label: str(input, 'label', name),
    type: str(input, 'type', 'api'),
    icon: str(input, 'icon', ''),
    auto_support: autoSupport,
    connect_ui_params: parseParams(input.connect_ui_params),
    config,
    fieldMap,
    tap_url: optStr(input, 'tap_url'),
    auth_url: optStr(input, 'auth_url'),
    client_id: optStr(input, 'client_id'),
    revoke_url: optStr(input, 'revoke_url'),
    identity_keys: strings(input, 'identity_keys'),
    discover,
    discover_on_link: discoverOnLink,
    ...runOf(kind, input),
    extra,
  };
  const clientSecret = optStr(input, 'client_secret');
  return { entry: dropUndefined(entry), secrets: clientSecret ? { client_secret: clientSecret } : null };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
