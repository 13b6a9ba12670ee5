// Field maps: stream name → { name, selected fields }. Validated on every write so
// the job engine can trust the shape.
import crypto from 'node:crypto';

export interface FieldMapEntry {
  /** Name of the stream after ETL. */
  name: string;
  /** Selected field names. */
  selected: string[];
}

export type FieldMap = Record<string, FieldMapEntry>;

const MAX_STREAMS = 10_000;

/** Returns the list of problems (empty when `value` is a valid field map). */
export function fieldMapProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['field_map must be an object or null'];
  const streams = Object.entries(value as Record<string, unknown>);
  if (streams.length > MAX_STREAMS) return [`field_map has more than ${MAX_STREAMS} streams`];
  const problems: string[] = [];
  for (const [stream, entry] of streams) {
    if (stream === '') problems.push('field_map has an empty stream name');
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`field_map["${stream}"] must be an object with "name" and "selected"`);
      continue;
    }
    const { name, selected } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') problems.push(`field_map["${stream}"].name must be a non-empty string`);
    if (!Array.isArray(selected) || selected.some((f) => typeof f !== 'string')) {
      problems.push(`field_map["${stream}"].selected must be an array of strings`);
    }
  }
  return problems;
}

/** Throws Error naming the first problems when `value` is not a field map. */
export function parseFieldMap(value: unknown): FieldMap | null {
  if (value === null) return null;
  const problems = fieldMapProblems(value);
  if (problems.length > 0) throw new Error(`Invalid field map: ${problems.slice(0, 3).join('; ')}`);
  return value as FieldMap;
}

/** Stable hash of a field map (key order does not matter), to notice changes since discovery. */
export function fieldMapHash(fieldMap: FieldMap | null): string {
  if (fieldMap === null) return 'none';
  const canonical = Object.keys(fieldMap).sort().map((stream) => {
    const e = fieldMap[stream] as FieldMapEntry;
    return [stream, e.name, [...e.selected].sort()];
  });
  return crypto.createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
