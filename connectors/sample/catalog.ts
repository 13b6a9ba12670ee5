/** Singer discovery output and catalog selection for tap-sample. */
import { STREAMS, findStream, streamSchema } from './streams.ts';
import type { FieldDef, StreamDef } from './streams.ts';

type Metadata = Record<string, unknown>;
interface MetadataEntry {
  breadcrumb: string[];
  metadata: Metadata;
}
interface CatalogStream {
  tap_stream_id?: string;
  stream?: string;
  schema?: { selected?: unknown };
  metadata?: MetadataEntry[];
}

export interface StreamPlan {
  stream: StreamDef;
  fields: FieldDef[];
  /** The catalog asked for `replication-method: FULL_TABLE`: bookmarks are ignored. */
  fullTable: boolean;
}

export function discoverCatalog(): { streams: unknown[] } {
  return {
    streams: STREAMS.map((s) => ({
      tap_stream_id: s.name,
      stream: s.name,
      schema: streamSchema(s.fields),
      key_properties: ['id'],
      replication_key: 'updated_at',
      metadata: [
        {
          breadcrumb: [],
          metadata: {
            'replication-method': 'INCREMENTAL',
            'valid-replication-keys': ['updated_at'],
            'table-key-properties': ['id'],
            'forced-replication-method': 'INCREMENTAL',
          },
        },
        ...s.fields.map((f) => ({
          breadcrumb: ['properties', f.name],
          metadata: { inclusion: f.automatic ? 'automatic' : 'available' },
        })),
      ],
    })),
  };
}

function streamMetadata(cs: CatalogStream): Metadata | undefined {
  return cs.metadata?.find((m) => Array.isArray(m.breadcrumb) && m.breadcrumb.length === 0)?.metadata;
}

function fieldMetadata(cs: CatalogStream): Map<string, Metadata> {
  const byField = new Map<string, Metadata>();
  for (const m of cs.metadata ?? []) {
    if (m.breadcrumb?.length === 2 && m.breadcrumb[0] === 'properties') byField.set(m.breadcrumb[1], m.metadata ?? {});
  }
  return byField;
}

function streamSelected(cs: CatalogStream): unknown {
  return streamMetadata(cs)?.selected ?? cs.schema?.selected;
}

/** Field-level selection applies only when some field of the stream says `selected`. */
function selectFields(stream: StreamDef, cs: CatalogStream): FieldDef[] {
  const meta = fieldMetadata(cs);
  const anyFieldSelection = [...meta.values()].some((m) => m.selected !== undefined);
  if (!anyFieldSelection) return stream.fields;
  return stream.fields.filter((f) => {
    const m = meta.get(f.name);
    if (f.automatic) return true;
    if (!m || m.inclusion === 'unsupported') return false;
    return m.selected === true || (m.selected === undefined && m['selected-by-default'] === true);
  });
}

/**
 * Which streams and fields to emit. Without a catalog: every stream. With
 * one: the catalog's streams that are selected, or all of them when no
 * stream carries selection metadata. `onlyStreams` (config `streams`)
 * narrows either result.
 */
export function planStreams(catalog: Record<string, unknown> | undefined, onlyStreams?: string[]): StreamPlan[] {
  for (const name of onlyStreams ?? []) {
    if (!findStream(name)) throw new Error(`config.streams names unknown stream ${JSON.stringify(name)}`);
  }
  const wanted = (s: StreamDef) => !onlyStreams || onlyStreams.includes(s.name);
  if (!catalog) return STREAMS.filter(wanted).map((stream) => ({ stream, fields: stream.fields, fullTable: false }));

  if (!Array.isArray(catalog.streams)) throw new Error('catalog must have a "streams" array');
  const entries = catalog.streams as CatalogStream[];
  const anySelection = entries.some((cs) => streamSelected(cs) !== undefined);
  const plans: StreamPlan[] = [];
  for (const stream of STREAMS) {
    if (!wanted(stream)) continue;
    const cs = entries.find((e) => (e.tap_stream_id ?? e.stream) === stream.name);
    if (!cs || (anySelection && streamSelected(cs) !== true)) continue;
    const fullTable = streamMetadata(cs)?.['replication-method'] === 'FULL_TABLE';
    plans.push({ stream, fields: selectFields(stream, cs), fullTable });
  }
  return plans;
}
