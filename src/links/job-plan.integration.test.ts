import { expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { parseFlow } from '../catalog/flow-validate.ts';
import { putEntry, putFlow } from '../catalog/store.ts';
import { parseCatalogEntry } from '../catalog/validate.ts';
import { describeEachStore } from '../../test/harness.ts';
import { clearSourceState, commitSourceState, resolveJobPlan, saveDiscoveredCatalog } from './job-plan.ts';
import { upsertLink } from './store.ts';

describeEachStore('resolveJobPlan', (h) => {
  async function seed() {
    const { envId } = await h().createEnv();
    const { ctx } = h();
    const scope = systemTenantScope(envId, 'acme');
    const db = ctx.db.kysely;
    const put = (kind: 'source' | 'target' | 'connector', input: unknown) => putEntry(db, scope, parseCatalogEntry(kind, input).entry, null, 1);
    await put('source', { tap: 'tap-sample', config: { record_count: 5 }, run: { builtin: 'tap-sample' } });
    await put('target', { target: 'target-jsonl', config: { flush_every_records: 10 }, run: { builtin: 'target-jsonl' } });
    await put('connector', { id: 'sample', read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' } });
    await putFlow(db, ctx.secrets, scope, parseFlow({ id: 'f1', taps: ['tap-sample'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: { destination_path: '/tmp/x' } } }), 1);
    await putFlow(db, ctx.secrets, scope, parseFlow({ id: 'f2', version: 2, connectors: ['sample'], export: { read: { connector: 'sample', config: { destination_path: '/tmp/r' } }, write: { connector: 'sample', config: { seed: 3 } } } }), 1);
    const write = { configEnc: ctx.secrets.sealJson({ api_key: 'k1' }), fieldMap: null, state: { bookmarks: { a: 1 } }, symlink: null };
    await upsertLink(db, scope, 'f1', { kind: 'source', name: 'tap-sample' }, write, 1);
    await upsertLink(db, scope, 'f2', { kind: 'connector', name: 'sample' }, write, 1);
    return { ctx, scope, db };
  }

  it('builds a v1 plan from the link, the catalog defaults and the flow export', async () => {
    const { ctx, scope } = await seed();
    const plan = await resolveJobPlan(ctx, scope, 'f1', {});
    expect(plan).toMatchObject({
      flowVersion: 1, flowId: 'f1', link: { kind: 'source', name: 'tap-sample' },
      source: { name: 'tap-sample', run: { builtin: 'tap-sample' }, config: { record_count: 5, api_key: 'k1' }, state: { bookmarks: { a: 1 } }, catalog: null },
      target: { name: 'target-jsonl', run: { builtin: 'target-jsonl' }, config: { flush_every_records: 10, destination_path: '/tmp/x' } },
      etl: { mode: 'field_map' }, discover: 'auto', fieldMapChangedSinceDiscovery: false,
    });
  });

  it('builds v2 read and write plans', async () => {
    const { ctx, scope } = await seed();
    const read = await resolveJobPlan(ctx, scope, 'f2', { connectorId: 'sample', jobType: 'read' });
    expect(read.source).toMatchObject({ name: 'sample', run: { builtin: 'tap-sample' }, config: { api_key: 'k1' } });
    expect(read.target).toMatchObject({ name: 'sample', run: { builtin: 'target-jsonl' }, config: { destination_path: '/tmp/r' } });
    await saveDiscoveredCatalog(ctx.db.kysely, scope, 'f2', { kind: 'connector', name: 'sample' }, { streams: [] });
    const write = await resolveJobPlan(ctx, scope, 'f2', { connectorId: 'sample', jobType: 'write' });
    expect(write.link).toEqual({ kind: 'connector', name: 'sample' });
    // The link's catalog is the connector's read side: the feed is discovered by every write job.
    expect(write).toMatchObject({ discover: 'always' });
    expect(write.source).toMatchObject({ run: { builtin: 'tap-sample' }, config: { seed: 3 }, state: { bookmarks: { a: 1 } }, catalog: null });
    expect(write.target).toMatchObject({ name: 'sample', run: { builtin: 'target-jsonl' }, config: { api_key: 'k1' } });
  });

  it('fails clearly for unknown flows, unlinked taps and v1/v2 mix-ups', async () => {
    const { ctx, scope } = await seed();
    await expect(resolveJobPlan(ctx, scope, 'nope', {})).rejects.toThrow(/Flow "nope" not found/);
    await expect(resolveJobPlan(ctx, scope, 'f1', { tap: 'tap-other' })).rejects.toThrow(/has not linked the source "tap-other"/);
    await expect(resolveJobPlan(ctx, { ...scope, tenant: 'other' }, 'f1', {})).rejects.toThrow(/has no linked source/);
    await expect(resolveJobPlan(ctx, scope, 'f1', { connectorId: 'sample' })).rejects.toThrow(/v1 flow/);
  });

  it('saves catalogs and states, and notices field map changes since discovery', async () => {
    const { ctx, scope, db } = await seed();
    const link = { kind: 'source' as const, name: 'tap-sample' };
    await saveDiscoveredCatalog(db, scope, 'f1', link, { streams: [] });
    await commitSourceState(db, scope, 'f1', link, { bookmarks: { b: 2 } });
    let plan = await resolveJobPlan(ctx, scope, 'f1', {});
    expect(plan.source.catalog).toEqual({ streams: [] });
    expect(plan.source.state).toEqual({ bookmarks: { b: 2 } });
    expect(plan.fieldMapChangedSinceDiscovery).toBe(false);
    await upsertLink(db, scope, 'f1', link, { configEnc: null, fieldMap: { s: { name: 's', selected: [] } }, state: null, symlink: null }, 2);
    plan = await resolveJobPlan(ctx, scope, 'f1', {});
    expect(plan.fieldMapChangedSinceDiscovery).toBe(true);
    await commitSourceState(db, scope, 'f1', link, { x: 1 });
    expect(await clearSourceState(db, scope, 'f1', { kind: 'source' })).toBe(1);
    expect((await resolveJobPlan(ctx, scope, 'f1', {})).source.state).toBeNull();
  });
});
