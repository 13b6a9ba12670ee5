// SSRF guard and secret hygiene of webhook delivery, on both stores.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import type { AppContext } from '../context.ts';
import { envWithWebhook, patchWebhook, recordEvents } from './testing/fixtures.ts';
import { startReceiver, type Receiver } from './testing/receiver.ts';
import { startWebhookDelivery } from './worker.ts';

const receivers: Receiver[] = [];
afterAll(async () => { for (const r of receivers) await r.close(); });
async function receiver(respond?: Receiver['respond']): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

describeEachStore('webhook SSRF guard (private targets refused)', (h) => {
  it('refuses a loopback, private or link-local webhook_url and non-http schemes', async () => {
    const env = await h().createEnv('ssrf');
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'ftp://example.com/x', 'http://u:p@example.com/']) {
      const res = await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_url: url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().Code).toBe('BadRequestError');
    }
    const ok = await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_url: 'https://93.184.215.14/hook' } });
    expect(ok.statusCode).toBe(200);
  });

  it('fails a delivery to a private address at once and never connects', async () => {
    const r = await receiver();
    const env = await h().createEnv('ssrf');
    // An override URL is only checked when the job accepts it; the worker checks again.
    await recordEvents(h(), env.envId, [{ jobId: 'j', seq: 1, override: { url: r.url() } }]);
    const worker = startWebhookDelivery(h().ctx, { envIds: [env.envId], pollMs: 50 });
    await worker.drain();
    await worker.stop();
    expect(r.requests).toHaveLength(0);
    const row = await h().ctx.db.kysely.selectFrom('webhook_events').selectAll().where('env_id', '=', env.envId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(/^blocked: .*loopback/);
  });
}, { config: { webhookAllowPrivate: false } });

describeEachStore('webhook secrets stay secret', (h) => {
  it('never writes a webhook secret to the logs or the delivery log', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const ctx: AppContext = { ...h().ctx, log: pino({ level: 'trace' }, sink) };
    let n = 0;
    const r = await receiver(() => (n++ % 2 === 0 ? 500 : 204)); // every event fails once, then succeeds
    const envSecret = 'env-secret-do-not-leak-1';
    const newSecret = 'env-secret-do-not-leak-2';
    const overrideSecret = 'override-secret-do-not-leak';
    const { envId, envKey } = await envWithWebhook(h(), { webhook_url: `${r.url()}?token=url-token-do-not-leak`, webhook_secret: envSecret });
    await patchWebhook(h(), envId, envKey, { webhook_secret: newSecret });
    await recordEvents(h(), envId, [{ jobId: 'a', seq: 1 }, { jobId: 'b', seq: 1, override: { url: r.url(), secret: overrideSecret } }]);
    const worker = startWebhookDelivery(ctx, { envIds: [envId], pollMs: 20, retry: { scheduleMs: [20, 20], jitter: 'none' } });
    await r.waitFor(() => r.acknowledged.length === 2);
    await worker.drain();
    await worker.stop();
    const res = await h().request({ method: 'GET', url: `/admin/environments/${envId}/webhooks/deliveries`, key: envKey });
    expect(res.statusCode).toBe(200);
    expect(res.json().deliveries).toHaveLength(2);
    expect(lines.some((l) => l.includes('will be retried'))).toBe(true);
    for (const text of [res.body, lines.join('\n')]) {
      for (const secret of [envSecret, newSecret, overrideSecret, 'url-token-do-not-leak']) expect(text).not.toContain(secret);
    }
  });
});
