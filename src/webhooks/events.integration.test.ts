// Payloads and routing of the event helpers used by jobs and links, on both stores.
import { expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { systemEnvScope } from '../auth/scope.ts';
import { recordConnectionEvent, recordDiscoverEvent, recordTenantDeleted } from './events.ts';
import { recordEvent } from './outbox.ts';
import { envWithWebhook } from './testing/fixtures.ts';

describeEachStore('webhook event helpers', (h) => {
  const rows = (envId: string) => h().ctx.db.kysely.selectFrom('webhook_events')
    .select(['event_type', 'ordering_key', 'url', 'destination', 'secrets_enc', 'payload']).where('env_id', '=', envId).orderBy('id').execute();

  it('records discover events outside jobs, and inside jobs with the job\'s ordering key and override', async () => {
    const { envId } = await envWithWebhook(h(), { webhook_url: 'https://93.184.215.14/env' });
    const scope = systemEnvScope(envId);
    const db = h().ctx.db.kysely;
    await recordDiscoverEvent(db, h().ctx, scope, { flowId: 'f', tenant: 't', connector: 'tap-x', status: 'DISCOVER_STARTED' });
    await recordDiscoverEvent(db, h().ctx, scope, {
      flowId: 'f', tenant: 't', connector: 'tap-x', status: 'DISCOVER_FAILED', message: 'bad creds', jobId: 'job1',
      override: { url: 'https://93.184.215.14/override', secret: 'job-secret' },
    });
    const [outside, inside] = await rows(envId);
    expect(outside).toMatchObject({ ordering_key: 'discover:f:t:tap-x', url: 'https://93.184.215.14/env', destination: 'environment', secrets_enc: null });
    expect(inside).toMatchObject({ ordering_key: 'job:job1', url: 'https://93.184.215.14/override', destination: 'override' });
    expect(inside.secrets_enc).not.toContain('job-secret');
    expect(h().ctx.secrets.openJson(inside.secrets_enc!)).toEqual(['job-secret']);
    const envelope = JSON.parse(inside.payload);
    expect(envelope).toMatchObject({
      type: 'discover.status_changed', env_id: envId,
      data: { flow_id: 'f', tenant: 't', connector: 'tap-x', status: 'DISCOVER_FAILED', message: 'bad creds', job_id: 'job1' },
    });
    expect(envelope.id).toMatch(/^msg_[A-Za-z0-9_-]{16}$/);
    expect(new Date(envelope.timestamp).toISOString()).toBe(envelope.timestamp);
  });

  it('orders connection events and tenant.deleted per tenant, without any config', async () => {
    const { envId } = await envWithWebhook(h(), { webhook_url: 'https://93.184.215.14/env', webhook_events: ['connection.*', 'tenant.deleted'] });
    const scope = systemEnvScope(envId);
    const db = h().ctx.db.kysely;
    await recordConnectionEvent(db, h().ctx, scope, 'connection.linked', { flowId: 'f', tenant: 't', kind: 'source', name: 'tap-x' });
    await recordConnectionEvent(db, h().ctx, scope, 'connection.updated', { flowId: 'f', tenant: 't', kind: 'source', name: 'tap-x', changed: ['config'] });
    await recordTenantDeleted(db, h().ctx, scope, 't');
    await recordEvent(db, h().ctx, scope, { type: 'job.status_changed', orderingKey: 'job:x', data: {} }); // filtered out
    const found = await rows(envId);
    expect(found.map((r) => [r.event_type, r.ordering_key])).toEqual([
      ['connection.linked', 'tenant:t'], ['connection.updated', 'tenant:t'], ['tenant.deleted', 'tenant:t'],
    ]);
    expect(JSON.parse(found[1].payload).data).toEqual({ env_id: envId, flow_id: 'f', tenant: 't', kind: 'source', tap: 'tap-x', changed: ['config'] });
  });

  it('records nothing when the environment has no webhook', async () => {
    const env = await h().createEnv('nowh');
    const id = await recordTenantDeleted(h().ctx.db.kysely, h().ctx, systemEnvScope(env.envId), 't');
    expect(id).toBeNull();
    expect(await rows(env.envId)).toEqual([]);
  });
});
