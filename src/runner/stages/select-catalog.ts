// Marks which streams and fields a tap should sync, in Singer catalog metadata:
// breadcrumb [] carries the stream's `selected`, ['properties', field] a field's.
import type { FieldMap } from './field-map.ts';

export interface CatalogMetadataEntry {
  breadcrumb: string[];
  metadata: Record<string, unknown>;
}

export interface CatalogStream {
  tap_stream_id?: string;
  stream?: string;
  schema: { properties?: Record<string, unknown>; [key: string]: unknown };
  metadata?: CatalogMetadataEntry[];
  [key: string]: unknown;
}

export interface SingerCatalog {
  streams: CatalogStream[];
  [key: string]: unknown;
}

/**
 * Per-job table selection (run-job `override_selected_tables`), keyed by stream:
 * true = all fields, false/null = not selected, string[] or { selected: string[] } = those fields.
 */
export type SelectedTables = Record<string, boolean | null | string[] | { selected?: string[] }>;

/**
 * Returns a copy of `catalog` with `selected` set. Which streams:
 * - overrideSelectedTables given: exactly those with a truthy entry;
 * - else fieldMap given: exactly the streams it names;
 * - else every stream.
 * Which fields of a selected stream: the override's list, else the field map's
 * `selected`, else all. Fields with inclusion "automatic" are always selected,
 * "unsupported" never. Streams are matched by tap_stream_id, then by stream name.
 */
export function selectCatalog(catalog: SingerCatalog, fieldMap: FieldMap | null, overrideSelectedTables: SelectedTables | null): SingerCatalog {
  const result = structuredClone(catalog);
  for (const stream of result.streams) {
    const choice = chooseFields(stream, fieldMap, overrideSelectedTables);
    markStream(stream, choice);
  }
  return result;
}

/** false: stream not selected; 'all': every field; a Set: those fields. */
type FieldChoice = false | 'all' | ReadonlySet<string>;

function chooseFields(stream: CatalogStream, fieldMap: FieldMap | null, override: SelectedTables | null): FieldChoice {
  const mapped = lookup(fieldMap, stream)?.selected;
  const mapFields: FieldChoice = Array.isArray(mapped) ? new Set(mapped) : 'all';
  if (override) {
    const entry = lookup(override, stream);
    if (!entry) return false;
    if (Array.isArray(entry)) return new Set(entry);
    if (typeof entry === 'object' && Array.isArray(entry.selected)) return new Set(entry.selected);
    return mapFields;
  }
  if (fieldMap) return lookup(fieldMap, stream) ? mapFields : false;
  return 'all';
}

function lookup<T>(table: Record<string, T> | null, stream: CatalogStream): T | undefined {
  if (!table) return undefined;
  for (const key of [stream.tap_stream_id, stream.stream]) {
    if (key !== undefined && Object.hasOwn(table, key)) return table[key];
  }
  return undefined;
}

function markStream(stream: CatalogStream, choice: FieldChoice): void {
  const metadata = (stream.metadata ??= []);
  const byPath = new Map(metadata.map((entry) => [entry.breadcrumb.join('\u0000'), entry]));
  const entryFor = (breadcrumb: string[]): CatalogMetadataEntry => {
    let entry = byPath.get(breadcrumb.join('\u0000'));
    if (!entry) {
      entry = { breadcrumb, metadata: {} };
      metadata.push(entry);
      byPath.set(breadcrumb.join('\u0000'), entry);
    }
    entry.metadata ??= {};
    return entry;
  };
  entryFor([]).metadata.selected = choice !== false;
  if (choice === false) return;
  for (const field of Object.keys(stream.schema?.properties ?? {})) {
    const entry = entryFor(['properties', field]);
    const inclusion = entry.metadata.inclusion;
    entry.metadata.selected = inclusion === 'automatic' || (inclusion !== 'unsupported' && (choice === 'all' || choice.has(field)));
  }
}
