// Delivery worker against a real local receiver, on both stores.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { envWithWebhook, parsed, patchWebhook, range, recordEvents, seqsByJob } from './testing/fixtures.ts';
import { startReceiver, type Receiver } from './testing/receiver.ts';
import { startWebhookDelivery, type WebhookDelivery, type WebhookDeliveryOptions } from './worker.ts';

const FAST_RETRY: WebhookDeliveryOptions['retry'] = { scheduleMs: Array(20).fill(40), jitter: 'none' };

describeEachStore('webhook delivery worker', (h) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean();
  });
  async function receiver(respond?: Receiver['respond']): Promise<Receiver> {
    const r = await startReceiver(respond);
    cleanups.push(() => r.close());
    return r;
  }
  function worker(envId: string, opts: WebhookDeliveryOptions = {}): WebhookDelivery {
    const w = startWebhookDelivery(h().ctx, { envIds: [envId], pollMs: 50, retry: FAST_RETRY, ...opts });
    cleanups.push(() => w.stop());
    return w;
  }

  it('signs every delivery so standardwebhooks and a plain HMAC-SHA1 check both verify it', async () => {
    const r = await receiver();
    const secret = 'upstream-plain-secret';
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url(), webhook_secret: secret });
    await recordEvents(h(), envId, [{ jobId: 'j1', seq: 1 }]);
    worker(envId);
    await r.waitFor(() => r.acknowledged.length === 1);
    const [req] = r.acknowledged;
    const verified = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(req.body, req.headers) as Record<string, unknown>;
    expect(verified).toMatchObject({ type: 'job.status_changed', env_id: envId, data: { job_id: 'j1', seq: 1 } });
    expect(verified.id).toBe(req.headers['webhook-id']);
    expect(req.headers['x-hub-signature']).toBe(createHmac('sha1', secret).update(req.body).digest('hex'));
    expect(req.headers['webhook-event-type']).toBe('job.status_changed');
  });

  it('signs with both secrets during a rotation overlap (whsec_ secrets)', async () => {
    const r = await receiver();
    const oldSecret = `whsec_${Buffer.from('old-secret-bytes-0123456789').toString('base64')}`;
    const newSecret = `whsec_${Buffer.from('new-secret-bytes-9876543210').toString('base64')}`;
    const { envId, envKey } = await envWithWebhook(h(), { webhook_url: r.url(), webhook_secret: oldSecret });
    await patchWebhook(h(), envId, envKey, { webhook_secret: newSecret, webhook_secret_overlap_hours: 1 });
    await recordEvents(h(), envId, [{ jobId: 'j1', seq: 1 }]);
    worker(envId);
    await r.waitFor(() => r.acknowledged.length === 1);
    const [req] = r.acknowledged;
    expect(req.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(req.body, req.headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(req.body, req.headers)).not.toThrow();
    expect(req.headers['x-hub-signature']).toBe(createHmac('sha1', newSecret).update(req.body).digest('hex'));
  });

  it("sends a job's lifecycle events to its override webhook, signed with the override's secret", async () => {
    const envReceiver = await receiver();
    const overrideReceiver = await receiver();
    const { envId } = await envWithWebhook(h(), { webhook_url: envReceiver.url(), webhook_secret: 'environment-secret' });
    const override = { url: overrideReceiver.url('/override'), secret: 'override-secret' };
    await recordEvents(h(), envId, [{ jobId: 'j1', seq: 1, override }, { jobId: 'j2', seq: 1 }]);
    worker(envId);
    await overrideReceiver.waitFor(() => overrideReceiver.acknowledged.length === 1);
    await envReceiver.waitFor(() => envReceiver.acknowledged.length === 1);
    const [req] = overrideReceiver.acknowledged;
    expect(parsed(req).data.job_id).toBe('j1');
    expect(parsed(envReceiver.acknowledged[0]).data.job_id).toBe('j2');
    expect(() => new Webhook(Buffer.from('override-secret'), { format: 'raw' }).verify(req.body, req.headers)).not.toThrow();
  });

  it("honours the environment's event filter", async () => {
    const r = await receiver();
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url(), webhook_events: ['discover.*'] });
    await recordEvents(h(), envId, [
      { jobId: 'j1', seq: 1 }, { jobId: 'j1', seq: 2, type: 'discover.status_changed' }, { jobId: 'j1', seq: 3, type: 'tenant.deleted' },
    ]);
    const w = worker(envId);
    await w.drain();
    expect(r.acknowledged.map((q) => parsed(q).type)).toEqual(['discover.status_changed']);
  });

  it('a receiver answering 503 for a while gets every event exactly once, in order per job (two workers)', async () => {
    let healthyAfter = Date.now() + 400;
    const r = await receiver(() => (Date.now() < healthyAfter ? 503 : 200));
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url(), webhook_secret: 'outage-secret' });
    healthyAfter = Date.now() + 400;
    worker(envId);
    worker(envId);
    await recordEvents(h(), envId, range(6).flatMap((seq) => [{ jobId: 'a', seq }, { jobId: 'b', seq }]));
    await r.waitFor(() => r.acknowledged.length === 12);
    await new Promise((resolve) => setTimeout(resolve, 150)); // nothing more may arrive
    expect(r.acknowledged).toHaveLength(12);
    expect(new Set(r.acknowledged.map((q) => q.headers['webhook-id'])).size).toBe(12);
    expect(seqsByJob(r.acknowledged)).toEqual({ a: range(6), b: range(6) });
    expect(r.requests.length).toBeGreaterThan(12);
  });

  it('a receiver refusing connections, then back on its port, gets every event exactly once in order', async () => {
    const r = await receiver();
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url() });
    await r.stop();
    worker(envId);
    await recordEvents(h(), envId, range(8).map((seq) => ({ jobId: 'c', seq })));
    const read = () => h().ctx.db.kysely.selectFrom('webhook_events').select(['attempts', 'last_error'])
      .where('env_id', '=', envId).orderBy('id').execute();
    await expect.poll(async () => (await read())[0]?.attempts ?? 0, { timeout: 5000 }).toBeGreaterThan(1);
    const rows = await read();
    expect(rows[0].last_error).toMatch(/^connection: /);
    expect(rows.slice(1).every((row) => row.attempts === 0)).toBe(true); // queued behind the first
    await r.restart();
    await r.waitFor(() => r.acknowledged.length === 8);
    expect(seqsByJob(r.acknowledged)).toEqual({ c: range(8) });
  });

  it('fails at once on a 400, retries 429 after its Retry-After, and later events of the job still go out', async () => {
    let calls = 0;
    const r = await receiver((req) => {
      const seq = parsed(req).data.seq;
      if (seq === 1) return 400;
      if (seq === 2 && calls++ === 0) return { status: 429, headers: { 'retry-after': '1' } };
      return 204;
    });
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url() });
    await recordEvents(h(), envId, range(3).map((seq) => ({ jobId: 'd', seq })));
    worker(envId);
    await r.waitFor(() => r.acknowledged.length === 2);
    const bySeq = (seq: number) => r.requests.filter((q) => parsed(q).data.seq === seq);
    expect(bySeq(1)).toHaveLength(1);
    expect(bySeq(2)[1].at - bySeq(2)[0].at).toBeGreaterThanOrEqual(950);
    expect(seqsByJob(r.acknowledged)).toEqual({ d: [2, 3] });
    // The receiver acknowledges before the worker records the outcome: poll for it.
    const rows = () => h().ctx.db.kysely.selectFrom('webhook_events').select(['status', 'attempts', 'last_status_code'])
      .where('env_id', '=', envId).orderBy('id').execute();
    await expect.poll(rows, { timeout: 5000 }).toEqual([
      { status: 'failed', attempts: 1, last_status_code: 400 },
      { status: 'delivered', attempts: 2, last_status_code: 204 },
      { status: 'delivered', attempts: 1, last_status_code: 204 },
    ]);
  });

  it('gives up when the retry schedule is exhausted', async () => {
    const r = await receiver(() => 500);
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url() });
    await recordEvents(h(), envId, [{ jobId: 'e', seq: 1 }]);
    const w = worker(envId, { retry: { scheduleMs: [20, 20], jitter: 'none' } });
    await r.waitFor(() => r.requests.length === 3);
    await w.drain();
    const row = await h().ctx.db.kysely.selectFrom('webhook_events').selectAll().where('env_id', '=', envId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });
    expect(row.last_error).toMatch(/retries exhausted/);
  });

  it('a slow endpoint does not hold up another one', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const { envId } = await envWithWebhook(h(), { webhook_url: fast.url() });
    const override = { url: slow.url('/slow') };
    await recordEvents(h(), envId, range(10).map((n) => ({ jobId: `slow${n}`, seq: 1, override })));
    worker(envId, { timeoutMs: 5_000 });
    await slow.waitFor(() => slow.requests.length === 4); // per-endpoint cap
    const started = Date.now();
    await recordEvents(h(), envId, range(10).map((n) => ({ jobId: `fast${n}`, seq: 1 })));
    await fast.waitFor(() => fast.acknowledged.length === 10, 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slow.requests).toHaveLength(4);
  });
});
