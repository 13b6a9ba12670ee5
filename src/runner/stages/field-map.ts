// Field map of a linked source: which streams go on to the export, under which
// name, and with which fields.

export interface FieldMapEntry {
  /** Name of the stream after ETL; default: the source stream name. */
  name?: string;
  /** Top-level fields to keep; absent = keep all fields. */
  selected?: string[];
}

export type FieldMap = Record<string, FieldMapEntry>;

/**
 * How a source stream is mapped, or undefined when it is dropped.
 * Choice: a null/absent map keeps every stream as is (the default field map is
 * "all fields to pull"); a present map is an allowlist, so a stream it does not
 * name is dropped (it was not selected in the catalog either, see selectCatalog).
 */
export function mappingFor(fieldMap: FieldMap | null | undefined, stream: string): { name: string; selected: readonly string[] | undefined } | undefined {
  if (!fieldMap) return { name: stream, selected: undefined };
  if (!Object.hasOwn(fieldMap, stream)) return undefined;
  const entry = fieldMap[stream] ?? {};
  const name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : stream;
  return { name, selected: Array.isArray(entry.selected) ? entry.selected : undefined };
}
