// Delivery log API (Tapline extension), on both stores.
import { afterAll, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { envWithWebhook, parsed, recordEvents } from './testing/fixtures.ts';
import { startReceiver, type Receiver } from './testing/receiver.ts';
import { startWebhookDelivery } from './worker.ts';

const receivers: Receiver[] = [];
afterAll(async () => { for (const r of receivers) await r.close(); });

describeEachStore('webhook delivery log API', (h) => {
  async function setup() {
    const r = await startReceiver((req) => (parsed(req).data.seq === 2 ? 410 : 204));
    receivers.push(r);
    const env = await envWithWebhook(h(), { webhook_url: r.url('/hook?sig=abc'), webhook_secret: 'log-secret' });
    await recordEvents(h(), env.envId, [{ jobId: 'j', seq: 1 }, { jobId: 'j', seq: 2 }, { jobId: 'j', seq: 3 }]);
    const worker = startWebhookDelivery(h().ctx, { envIds: [env.envId], pollMs: 20 });
    await worker.drain();
    return { ...env, r, worker };
  }
  const base = (envId: string) => `/admin/environments/${envId}/webhooks/deliveries`;

  it('lists deliveries newest first with status, attempts, response code, latency and a payload summary', async () => {
    const { envId, envKey, worker } = await setup();
    await worker.stop();
    const res = await h().request({ method: 'GET', url: base(envId), key: envKey });
    expect(res.statusCode).toBe(200);
    const { deliveries, next_before } = res.json();
    expect(next_before).toBeNull();
    expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['delivered', 'failed', 'delivered']);
    expect(deliveries[1]).toMatchObject({
      event_type: 'job.status_changed', destination: 'environment', attempts: 1, last_status_code: 410,
      last_error: 'HTTP 410', payload_summary: { job_id: 'j', status: 'STATUS_2' }, next_attempt_at: null,
    });
    expect(deliveries[1].url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook\?\[hidden\]$/);
    expect(deliveries[1].event_id).toMatch(/^msg_/);
    expect(deliveries[0].last_latency_ms).toBeGreaterThanOrEqual(0);
    expect(deliveries[0].delivered_at).not.toBeNull();
  });

  it('filters by status and pages with before', async () => {
    const { envId, envKey, worker } = await setup();
    await worker.stop();
    const failed = (await h().request({ method: 'GET', url: `${base(envId)}?status=failed`, key: envKey })).json();
    expect(failed.deliveries).toHaveLength(1);
    const page1 = (await h().request({ method: 'GET', url: `${base(envId)}?limit=2`, key: envKey })).json();
    expect(page1.deliveries).toHaveLength(2);
    const page2 = (await h().request({ method: 'GET', url: `${base(envId)}?limit=2&before=${page1.next_before}`, key: envKey })).json();
    expect(page2.deliveries).toHaveLength(1);
    expect(page2.deliveries[0].id).toBeLessThan(page1.deliveries[1].id);
    const bad = await h().request({ method: 'GET', url: `${base(envId)}?status=lost`, key: envKey });
    expect(bad.statusCode).toBe(400);
  });

  it('redelivers a delivery as a new one with the same event id, and refuses a pending one', async () => {
    const { envId, envKey, r, worker } = await setup();
    const failed = (await h().request({ method: 'GET', url: `${base(envId)}?status=failed`, key: envKey })).json().deliveries[0];
    r.respond = () => 204;
    const res = await h().request({ method: 'POST', url: `${base(envId)}/${failed.id}/redeliver`, key: envKey });
    expect(res.statusCode).toBe(200);
    const copy = res.json();
    expect(copy).toMatchObject({ status: 'pending', attempts: 0, redelivery_of: failed.id, event_id: failed.event_id });
    const conflict = await h().request({ method: 'POST', url: `${base(envId)}/${copy.id}/redeliver`, key: envKey });
    expect([200, 409]).toContain(conflict.statusCode); // 409 unless the worker was faster
    await r.waitFor(() => r.acknowledged.some((q) => parsed(q).id === failed.event_id));
    await worker.drain();
    await worker.stop();
    const after = (await h().request({ method: 'GET', url: `${base(envId)}/${copy.id}`, key: envKey })).json();
    expect(after).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204 });
  });

  it('checks permissions and never reaches another environment', async () => {
    const { envId, envKey, publicKey, worker } = await setup();
    await worker.stop();
    const other = await h().createEnv('other');
    const first = (await h().request({ method: 'GET', url: base(envId), key: envKey })).json().deliveries[0];
    const viewer = (await h().request({ method: 'POST', url: `/admin/environments/${envId}/api-keys`, key: envKey, body: { type: 'personal', role: 'viewer', user: 'v@example.com' } })).json().key;
    expect((await h().request({ method: 'GET', url: base(envId), key: viewer })).statusCode).toBe(200);
    expect((await h().request({ method: 'POST', url: `${base(envId)}/${first.id}/redeliver`, key: viewer })).statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url: base(envId), key: publicKey })).statusCode).toBe(403);
    expect((await h().request({ method: 'GET', url: `${base(other.envId)}/${first.id}`, key: other.envKey })).statusCode).toBe(404);
    expect((await h().request({ method: 'POST', url: `${base(other.envId)}/${first.id}/redeliver`, key: other.envKey })).statusCode).toBe(404);
    expect((await h().request({ method: 'GET', url: base(other.envId), key: other.envKey })).json().deliveries).toEqual([]);
  });
});
