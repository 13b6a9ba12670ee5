import { expect, it } from 'vitest';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';

describeEachStore('connection events', (h) => {
  it('records connection.* and tenant.deleted events (without secrets) in the outbox', async () => {
    const env = await envWithCatalog(h());
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_url: 'http://127.0.0.1:9/hook' } });
    const tenant = uniqueId('t');
    const url = `/${env.envId}/f1/${tenant}/linkedSources`;
    await h().request({ method: 'POST', url, key: env.envKey, body: sampleLink() });
    await h().request({ method: 'POST', url, key: env.envKey, body: sampleLink() });
    await h().request({ method: 'PATCH', url, key: env.envKey, body: { tap: 'tap-sample', field_map: null } });
    await h().request({ method: 'DELETE', url: `${url}?tap_name=tap-sample`, key: env.envKey });
    await h().request({ method: 'DELETE', url: `/tenant/${env.envId}/${tenant}`, key: env.envKey });
    // (discover.status_changed events of the discovery after linking: see discovery.integration.test.ts)
    const rows = await h().ctx.db.kysely.selectFrom('webhook_events').select(['event_type', 'payload']).where('env_id', '=', env.envId)
      .where('event_type', '!=', 'discover.status_changed').orderBy('id').execute();
    expect(rows.map((r) => r.event_type)).toEqual(['connection.linked', 'connection.updated', 'connection.updated', 'connection.unlinked', 'tenant.deleted']);
    expect(JSON.parse(rows[0]?.payload as string).data).toEqual({ flow_id: 'f1', tenant, kind: 'source', tap: 'tap-sample' });
    expect(JSON.stringify(rows)).not.toContain('sk-live-123');
  });
});
