// "Killing Tapline with SIGKILL between a status change and its delivery loses no
// event": a child process records events and is killed while its worker is
// sending the first one; a worker in this process then delivers all of them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, inject, it } from 'vitest';
import { describeEachStore } from '../../test/harness.ts';
import { envWithWebhook, range, seqsByJob } from './testing/fixtures.ts';
import { startReceiver } from './testing/receiver.ts';
import { startWebhookDelivery } from './worker.ts';

const CHILD = fileURLToPath(new URL('./testing/record-then-die.ts', import.meta.url));

function runChildUntilRecorded(args: Record<string, unknown>) {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  const recorded = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => { if (c.toString().includes('recorded')) resolve(); });
    child.once('exit', (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { child, recorded, exited };
}

describeEachStore('webhook outbox survives SIGKILL', (h) => {
  const receivers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => { for (const r of receivers) await r.close(); });

  it('delivers every event recorded by a process killed mid-delivery, in order', async () => {
    let first = true;
    // The first request (the child's attempt) never gets an answer: the child dies mid-send.
    const r = await startReceiver(() => (first ? ((first = false), 'hang') : 204));
    receivers.push(r);
    const { envId } = await envWithWebhook(h(), { webhook_url: r.url(), webhook_secret: 'crash-secret' });
    const config = h().ctx.config;
    const { child, recorded, exited } = runChildUntilRecorded({
      dataDir: config.dataDir, secretKey: config.secretKey, databaseUrl: config.databaseUrl,
      pgSchema: h().store === 'postgres' ? inject('pgSchema') : undefined,
      envId, jobId: 'crash', count: 5, leaseMs: 800,
    });
    await recorded;
    await r.waitFor(() => r.requests.length === 1);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(r.acknowledged).toHaveLength(0);

    const worker = startWebhookDelivery(h().ctx, { envIds: [envId], pollMs: 50 });
    try {
      await r.waitFor(() => r.acknowledged.length === 5, 15_000);
    } finally {
      await worker.stop();
    }
    expect(seqsByJob(r.acknowledged)).toEqual({ crash: range(5) });
    // The killed attempt and its retry carry the same webhook-id, so receivers can drop duplicates.
    expect(r.requests[0].headers['webhook-id']).toBe(r.acknowledged[0].headers['webhook-id']);
  });
});

describeEachStore('job lifecycle webhooks survive SIGKILL', (h) => {
  it('delivers every status change of a job, killed mid-delivery, to its override webhook in order', async () => {
    let first = true;
    const r = await startReceiver(() => (first ? ((first = false), 'hang') : 204));
    try {
      const env = await h().createEnv('crashjob');
      const config = h().ctx.config;
      const secret = 'job-override-secret';
      const { child, recorded, exited } = runChildUntilRecorded({
        dataDir: config.dataDir, secretKey: config.secretKey, databaseUrl: config.databaseUrl,
        pgSchema: h().store === 'postgres' ? inject('pgSchema') : undefined,
        envId: env.envId, jobId: `job-${env.envId}`, count: 0, leaseMs: 800, job: { url: r.url('/job'), secret },
      });
      await recorded;
      await r.waitFor(() => r.requests.length === 1);
      child.kill('SIGKILL');
      await exited;
      const worker = startWebhookDelivery(h().ctx, { envIds: [env.envId], pollMs: 50 });
      try {
        await r.waitFor(() => r.acknowledged.length === 7, 15_000);
      } finally {
        await worker.stop();
      }
      const events = r.acknowledged.map((q) => {
        new Webhook(Buffer.from(secret), { format: 'raw' }).verify(q.body, q.headers);
        return JSON.parse(q.body).data as { job_id: string; status: string; previous_status: string };
      });
      expect(events.map((e) => e.status)).toEqual(['DISCOVER_STARTED', 'SYNC_STARTED', 'SYNC_SUCCESS', 'ETL_STARTED', 'ETL_SUCCESS', 'EXPORT_STARTED', 'JOB_COMPLETED']);
      expect(events[0]).toMatchObject({ job_id: `job-${env.envId}`, previous_status: 'JOB_CREATED' });
    } finally {
      await r.close();
    }
  });
});
