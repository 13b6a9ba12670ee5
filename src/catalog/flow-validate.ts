// Turns an operator's flow definition into a FlowSpec. Pure: throws Error with a
// precise message. References to catalog entries are checked by the service.
import type { EtlSetting, ExportSide, FlowSpec, WidgetOptions } from './types.ts';

const FLOW_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Path words of our own routes: a flow with one of these ids could not be addressed. */
export const RESERVED_FLOW_IDS = new Set(['flows', 'v2', 'admin', 'tenant', 'tenants', 'entity']);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function validateFlowId(flowId: string): void {
  if (!FLOW_ID.test(flowId)) throw new Error('flow id must be 1-64 characters: letters, digits, "_", "-", "." (not first)');
  if (RESERVED_FLOW_IDS.has(flowId)) throw new Error(`flow id "${flowId}" is reserved`);
}

function names(input: Json, key: string): string[] {
  const v = input[key] ?? [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) throw new Error(`"${key}" must be an array of names`);
  return [...new Set(v as string[])];
}

function text(input: Json, key: string, fallback: string): string {
  const v = input[key] ?? fallback;
  if (typeof v !== 'string') throw new Error(`"${key}" must be a string`);
  return v;
}

function optionalText(input: Json, key: string): string | null {
  const v = input[key] ?? null;
  if (v !== null && typeof v !== 'string') throw new Error(`"${key}" must be a string or null`);
  return v === '' ? null : v;
}

function widgetOptions(value: unknown): WidgetOptions {
  const w = value ?? {};
  if (!isObject(w)) throw new Error('"widgetOptions" must be an object');
  const flag = (key: keyof WidgetOptions, fallback: boolean): boolean => {
    const v = w[key] ?? fallback;
    if (typeof v !== 'boolean') throw new Error(`widgetOptions.${key} must be a boolean`);
    return v;
  };
  return {
    allowRunJobs: flag('allowRunJobs', true),
    allowRunWriteJobs: flag('allowRunWriteJobs', false),
    allowFullSyncJobs: flag('allowFullSyncJobs', true),
    allowSyncSchedule: flag('allowSyncSchedule', true),
  };
}

function exportSide(value: unknown, member: 'target' | 'connector', what: string): ExportSide | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new Error(`"${what}" must be {"${member}": name, "config": {...}} or null`);
  const name = value[member];
  if (typeof name !== 'string' || name === '') throw new Error(`"${what}.${member}" must name an available ${member}`);
  const config = value.config ?? {};
  if (!isObject(config)) throw new Error(`"${what}.config" must be an object`);
  return { name, config };
}

function etl(value: unknown): EtlSetting {
  if (value === undefined || value === null || value === 'field_map') return { mode: 'field_map' };
  if (value === 'none') return { mode: 'none' };
  const command = isObject(value) ? value.command : undefined;
  if (Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === 'string' && c !== '')) {
    return { mode: 'command', command: command as string[] };
  }
  throw new Error('"etl" must be "none", "field_map" or {"command": ["program", "arg", ...]}');
}

function version(value: unknown): 1 | 2 {
  const v = value ?? 1;
  if (v !== 1 && v !== 2) throw new Error('"version" must be 1 or 2');
  return v;
}

/** `idFromPath` wins over a body `id` (they must agree when both are given). */
export function parseFlow(input: unknown, idFromPath?: string): FlowSpec {
  if (!isObject(input)) throw new Error('a flow must be an object');
  const id = idFromPath ?? input.id;
  if (typeof id !== 'string') throw new Error('a flow needs an "id"');
  if (idFromPath !== undefined && input.id !== undefined && input.id !== idFromPath) {
    throw new Error(`flow "id" ${JSON.stringify(input.id)} does not match the path's flow id "${idFromPath}"`);
  }
  validateFlowId(id);
  const v = version(input.version);
  const wrongMembers = v === 1 ? ['connectors'] : ['taps', 'targets'];
  for (const m of wrongMembers) {
    if (Array.isArray(input[m]) && input[m].length > 0) throw new Error(`a version ${v} flow cannot have "${m}"`);
  }
  const exp = isObject(input.export) || input.export === null || input.export === undefined ? input.export : undefined;
  if (input.export !== undefined && input.export !== null && !isObject(input.export)) throw new Error('"export" must be an object or null');
  const v2 = (exp ?? {}) as Json;
  const discover = input.discover ?? 'auto';
  if (discover !== 'auto' && discover !== 'always') throw new Error('"discover" must be "auto" or "always"');
  const flowIcon = input.flowIcon ?? null;
  if (flowIcon !== null && typeof flowIcon !== 'string') throw new Error('"flowIcon" must be a string or null');
  return {
    id,
    name: text(input, 'name', id),
    description: text(input, 'description', ''),
    version: v,
    type: optionalText(input, 'type'),
    flowIcon,
    taps: v === 1 ? names(input, 'taps') : [],
    targets: v === 1 ? names(input, 'targets') : [],
    connectors: v === 2 ? names(input, 'connectors') : [],
    widgetOptions: widgetOptions(input.widgetOptions),
    export: v === 1 ? exportSide(exp, 'target', 'export') : null,
    readExport: v === 2 ? exportSide(v2.read, 'connector', 'export.read') : null,
    writeSource: v === 2 ? exportSide(v2.write, 'connector', 'export.write') : null,
    etl: etl(input.etl),
    discover,
  };
}
