import { afterAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import { jsonLines, runConnector, tempDir, writeJson } from './testing.ts';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
function tap(config: Record<string, unknown>, extra: { catalog?: unknown; state?: unknown } = {}) {
  const args = ['--config', writeJson(dir, `config-${++files}.json`, config)];
  if (extra.catalog) args.push('--catalog', writeJson(dir, `catalog-${files}.json`, extra.catalog));
  if (extra.state) args.push('--state', writeJson(dir, `state-${files}.json`, extra.state));
  const result = runConnector('tap-sample.ts', args);
  return { ...result, messages: result.status === 0 || result.stdout ? jsonLines(result.stdout) : [] };
}

const records = (messages: any[], stream?: string) =>
  messages.filter((m) => m.type === 'RECORD' && (!stream || m.stream === stream)).map((m) => m.record);
const states = (messages: any[]) => messages.filter((m) => m.type === 'STATE').map((m) => m.value);
const discover = () => JSON.parse(runConnector('tap-sample.ts', ['--discover']).stdout);

describe('tap-sample --discover', () => {
  it('prints a Singer catalog with metadata for each stream and field', () => {
    const catalog = discover();
    expect(catalog.streams.map((s: any) => s.tap_stream_id)).toEqual(['contacts', 'companies', 'deals']);
    const contacts = catalog.streams[0];
    expect(contacts).toMatchObject({ stream: 'contacts', key_properties: ['id'], replication_key: 'updated_at' });
    expect(Object.keys(contacts.schema.properties)).toEqual([
      'id', 'first_name', 'last_name', 'email', 'company_id', 'phone', 'created_at', 'updated_at',
    ]);
    expect(contacts.metadata[0]).toEqual({
      breadcrumb: [],
      metadata: expect.objectContaining({
        'replication-method': 'INCREMENTAL', 'valid-replication-keys': ['updated_at'], 'table-key-properties': ['id'],
      }),
    });
    const inclusion = Object.fromEntries(contacts.metadata.slice(1).map((m: any) => [m.breadcrumb[1], m.metadata.inclusion]));
    expect(inclusion).toMatchObject({ id: 'automatic', updated_at: 'automatic', email: 'available' });
    expect(Object.keys(catalog.streams[1].schema.properties)).toEqual(['id', 'name', 'domain', 'industry', 'employees', 'updated_at']);
    expect(Object.keys(catalog.streams[2].schema.properties)).toEqual(['id', 'name', 'amount', 'stage', 'company_id', 'contact_id', 'updated_at']);
  });
});

describe('tap-sample sync', () => {
  it('emits SCHEMA, records in updated_at order and a final STATE per stream', () => {
    const { status, messages } = tap({ record_count: 5 });
    expect(status).toBe(0);
    expect(messages.filter((m) => m.type === 'SCHEMA').map((m) => m.stream)).toEqual(['contacts', 'companies', 'deals']);
    const contacts = records(messages, 'contacts');
    expect(contacts.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(contacts[0].updated_at).toBe('2024-01-01T00:00:00Z');
    expect(contacts[4].updated_at).toBe('2024-01-01T00:00:04Z');
    expect(contacts[2].email).toMatch(/^[a-z]+\.[a-z]+\.3@[a-z]+3?\d*\.example\.com$/);
    expect(Object.keys(records(messages, 'deals')[0])).toEqual(['id', 'name', 'amount', 'stage', 'company_id', 'contact_id', 'updated_at']);
    expect(states(messages).at(-1)).toEqual({
      bookmarks: Object.fromEntries(['contacts', 'companies', 'deals'].map((s) => [s, { updated_at: '2024-01-01T00:00:04Z' }])),
    });
  });

  it('is deterministic for a seed and different across seeds', () => {
    const a = tap({ record_count: 50, seed: 7 });
    const b = tap({ record_count: 50, seed: 7 });
    const c = tap({ record_count: 50, seed: 8 });
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe(c.stdout);
    expect(records(c.messages).map((r) => [r.id, r.updated_at])).toEqual(records(a.messages).map((r) => [r.id, r.updated_at]));
  });

  it('keeps references valid: company_id and contact_id point at emitted records', () => {
    const { messages } = tap({ record_count: 40 });
    for (const deal of records(messages, 'deals')) {
      expect(deal.company_id).toBeGreaterThanOrEqual(1);
      expect(deal.company_id).toBeLessThanOrEqual(deal.id);
      expect(deal.contact_id).toBeLessThanOrEqual(deal.id);
    }
    const companies = new Map(records(messages, 'companies').map((c) => [c.id, c.domain]));
    for (const contact of records(messages, 'contacts')) expect(contact.email.endsWith(`@${companies.get(contact.company_id)}`)).toBe(true);
  });

  it('emits periodic STATE messages every state_interval records', () => {
    const { messages } = tap({ record_count: 25, streams: ['deals'], state_interval: 10 });
    expect(states(messages).map((s) => s.bookmarks.deals.updated_at)).toEqual([
      '2024-01-01T00:00:09Z', '2024-01-01T00:00:19Z', '2024-01-01T00:00:24Z',
    ]);
  });

  it('limits streams by config.streams and rejects unknown names', () => {
    const only = tap({ record_count: 3, streams: ['companies'] }).messages;
    expect(only.filter((m) => m.type === 'RECORD').map((m) => m.stream)).toEqual(['companies', 'companies', 'companies']);
    const bad = tap({ streams: ['nope'] });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/unknown stream "nope"/);
  });

  it('honours stream and field selection in the catalog', () => {
    const catalog = discover();
    for (const stream of catalog.streams) {
      stream.metadata[0].metadata.selected = stream.stream === 'contacts';
      for (const m of stream.metadata.slice(1)) m.metadata.selected = m.breadcrumb[1] === 'email';
    }
    const { messages } = tap({ record_count: 3 }, { catalog });
    expect(messages.filter((m) => m.type === 'SCHEMA').map((m) => m.stream)).toEqual(['contacts']);
    expect(Object.keys(messages[0].schema.properties)).toEqual(['id', 'email', 'updated_at']);
    expect(Object.keys(records(messages)[0])).toEqual(['id', 'email', 'updated_at']);
  });

  it('emits every catalog stream when the catalog has no selection metadata', () => {
    const catalog = discover();
    catalog.streams = catalog.streams.filter((s: any) => s.stream !== 'deals');
    const { messages } = tap({ record_count: 2 }, { catalog });
    expect(messages.filter((m) => m.type === 'SCHEMA').map((m) => m.stream)).toEqual(['contacts', 'companies']);
    expect(Object.keys(records(messages)[0])).toHaveLength(8);
  });

  it('resumes from state bookmarks: a bigger record_count emits only the new records', () => {
    const first = tap({ record_count: 5 });
    const state = states(first.messages).at(-1);
    const second = tap({ record_count: 8 }, { state });
    expect(records(second.messages, 'contacts').map((r) => r.id)).toEqual([6, 7, 8]);
    expect(records(second.messages, 'deals').map((r) => r.id)).toEqual([6, 7, 8]);
    expect(records(second.messages, 'contacts')).toEqual(records(tap({ record_count: 8 }).messages, 'contacts').slice(5));
    expect(states(second.messages).at(-1).bookmarks.contacts.updated_at).toBe('2024-01-01T00:00:07Z');

    const third = tap({ record_count: 8 }, { state: states(second.messages).at(-1) });
    expect(records(third.messages)).toEqual([]);
    expect(states(third.messages).at(-1)).toEqual(states(second.messages).at(-1));
  });

  it('ignores bookmarks for streams the catalog sets to FULL_TABLE', () => {
    const catalog = discover();
    catalog.streams[0].metadata[0].metadata['replication-method'] = 'FULL_TABLE';
    const state = { bookmarks: { contacts: { updated_at: '2024-01-01T00:00:01Z' }, companies: { updated_at: '2024-01-01T00:00:01Z' } } };
    const { messages } = tap({ record_count: 3, streams: ['contacts', 'companies'] }, { catalog, state });
    expect(records(messages, 'contacts').map((r) => r.id)).toEqual([1, 2, 3]);
    expect(records(messages, 'companies').map((r) => r.id)).toEqual([3]);
  });

  it('keeps unrelated state keys and accepts a whole STATE message as state', () => {
    const state = { type: 'STATE', value: { bookmarks: { contacts: { updated_at: '2024-01-01T00:00:01Z' } }, extra: 1 } };
    const { messages } = tap({ record_count: 3, streams: ['contacts'] }, { state });
    expect(records(messages).map((r) => r.id)).toEqual([3]);
    expect(states(messages).at(-1)).toEqual({ bookmarks: { contacts: { updated_at: '2024-01-01T00:00:02Z' } }, extra: 1 });
  });

  it('windows records by start_date (inclusive) and end_date (exclusive)', () => {
    const { messages } = tap({
      record_count: 100, streams: ['contacts'], start_date: '2024-01-01T00:00:10Z', end_date: '2024-01-01T00:00:13Z',
    });
    expect(records(messages).map((r) => r.id)).toEqual([11, 12, 13]);
    expect(records(tap({ record_count: 5, start_date: '2025-01-01' }).messages)).toEqual([]);
  });

  it('fails on purpose after fail_after records', () => {
    const { status, stderr, stdout } = tap({ record_count: 10, fail_after: 4 });
    expect(status).toBe(1);
    expect(stderr).toMatch(/fail_after/);
    expect(records(jsonLines(stdout))).toHaveLength(4);
  });

  it('slows down by sleep_ms_per_record', () => {
    const started = Date.now();
    const { status, messages } = tap({ record_count: 4, streams: ['deals'], sleep_ms_per_record: 50 });
    expect(status).toBe(0);
    expect(records(messages)).toHaveLength(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('exits 1 with a message for bad config or arguments', () => {
    expect(tap({ record_count: -1 }).stderr).toMatch(/record_count/);
    expect(tap({ start_date: 'yesterday' }).status).toBe(1);
    const noConfig = runConnector('tap-sample.ts', []);
    expect(noConfig.status).toBe(1);
    expect(noConfig.stderr).toMatch(/--config is required/);
    expect(runConnector('tap-sample.ts', ['--bogus']).stderr).toMatch(/unknown argument/);
  });
});
