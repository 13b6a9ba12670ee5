import { describe, expect, it } from 'vitest';
import { selectCatalog, type SingerCatalog } from './select-catalog.ts';

const props = { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' }, secret: { type: 'string' } };
const catalog = (): SingerCatalog => ({
  streams: [
    {
      tap_stream_id: 'contacts',
      stream: 'contacts',
      schema: { type: 'object', properties: props },
      metadata: [
        { breadcrumb: [], metadata: { 'table-key-properties': ['id'] } },
        { breadcrumb: ['properties', 'id'], metadata: { inclusion: 'automatic' } },
        { breadcrumb: ['properties', 'secret'], metadata: { inclusion: 'unsupported' } },
      ],
    },
    { tap_stream_id: 'deals', schema: { type: 'object', properties: { id: {}, amount: {} } } },
  ],
});

/** stream -> selected flag and the selected field names. */
function selection(c: SingerCatalog): Record<string, { selected: unknown; fields: string[] }> {
  return Object.fromEntries(c.streams.map((s) => {
    const md = s.metadata ?? [];
    const top = md.find((m) => m.breadcrumb.length === 0)?.metadata.selected;
    const fields = md.filter((m) => m.breadcrumb[0] === 'properties' && m.metadata.selected === true).map((m) => m.breadcrumb[1]).sort();
    return [s.tap_stream_id, { selected: top, fields }];
  }));
}

describe('selectCatalog', () => {
  it('selects every stream and field when there is no field map and no override', () => {
    expect(selection(selectCatalog(catalog(), null, null))).toEqual({
      contacts: { selected: true, fields: ['email', 'id', 'name'] },
      deals: { selected: true, fields: ['amount', 'id'] },
    });
  });

  it('selects only the mapped streams and fields, always keeping automatic fields', () => {
    const result = selectCatalog(catalog(), { contacts: { name: 'people', selected: ['name', 'secret'] } }, null);
    expect(selection(result)).toEqual({
      contacts: { selected: true, fields: ['id', 'name'] },
      deals: { selected: false, fields: [] },
    });
  });

  it('a mapped stream without a field list keeps all fields', () => {
    expect(selection(selectCatalog(catalog(), { deals: {} }, null)).deals).toEqual({ selected: true, fields: ['amount', 'id'] });
  });

  it('override_selected_tables decides the streams, its lists win over the field map', () => {
    const map = { contacts: { selected: ['email'] }, deals: { selected: ['amount'] } };
    expect(selection(selectCatalog(catalog(), map, { contacts: true, deals: false }))).toEqual({
      contacts: { selected: true, fields: ['email', 'id'] },
      deals: { selected: false, fields: [] },
    });
    expect(selection(selectCatalog(catalog(), map, { deals: ['id'] }))).toEqual({
      contacts: { selected: false, fields: [] },
      deals: { selected: true, fields: ['id'] },
    });
    expect(selection(selectCatalog(catalog(), null, { deals: { selected: ['amount'] } })).deals.fields).toEqual(['amount']);
  });

  it('does not modify its input and keeps other metadata', () => {
    const input = catalog();
    const before = structuredClone(input);
    const result = selectCatalog(input, null, null);
    expect(input).toEqual(before);
    expect(result.streams[0].metadata?.[0].metadata['table-key-properties']).toEqual(['id']);
  });

  it('ignores inherited keys such as __proto__ or toString in maps', () => {
    const c = catalog();
    c.streams[1].tap_stream_id = 'toString';
    expect(selection(selectCatalog(c, {}, null)).toString).toEqual({ selected: false, fields: [] });
  });
});
