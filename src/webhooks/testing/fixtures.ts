// Shared steps of the webhook integration tests (not a test file itself).
import type { Harness } from '../../../test/harness.ts';
import { systemEnvScope } from '../../auth/scope.ts';
import { recordEvent, type LifecycleWebhook, type WebhookEventType } from '../outbox.ts';
import type { ReceivedRequest } from './receiver.ts';

export interface WebhookSettings {
  webhook_url?: string | null;
  webhook_secret?: string | null;
  webhook_events?: string[] | null;
  webhook_secret_overlap_hours?: number;
}

/** A fresh environment with the given webhook settings (through the admin API). */
export async function envWithWebhook(h: Harness, settings: WebhookSettings): Promise<{ envId: string; envKey: string; publicKey: string }> {
  const env = await h.createEnv('wh');
  await patchWebhook(h, env.envId, env.envKey, settings);
  return { envId: env.envId, envKey: env.envKey, publicKey: env.publicKey };
}

export async function patchWebhook(h: Harness, envId: string, envKey: string, settings: WebhookSettings): Promise<void> {
  const res = await h.request({ method: 'PATCH', url: `/admin/environments/${envId}`, key: envKey, body: settings });
  if (res.statusCode !== 200) throw new Error(`PATCH environment failed: ${res.statusCode} ${res.body}`);
}

export interface TestEvent {
  readonly jobId: string;
  readonly seq: number;
  readonly type?: WebhookEventType;
  readonly override?: LifecycleWebhook | null;
}

/** Records each event in its own transaction together with a change (like a job status change). */
export async function recordEvents(h: Harness, envId: string, events: readonly TestEvent[]): Promise<void> {
  const scope = systemEnvScope(envId);
  for (const e of events) {
    await h.ctx.db.kysely.transaction().execute(async (trx) => {
      await trx.updateTable('environments').set({ updated_at: h.ctx.now() }).where('env_id', '=', envId).execute();
      await recordEvent(trx, h.ctx, scope, {
        type: e.type ?? 'job.status_changed',
        orderingKey: `job:${e.jobId}`,
        data: { job_id: e.jobId, seq: e.seq, status: `STATUS_${e.seq}` },
        override: e.override ?? null,
      });
    });
  }
}

export function parsed(req: ReceivedRequest): { id: string; type: string; data: { job_id: string; seq: number } } {
  return JSON.parse(req.body);
}

/** Sequence numbers per job, in the order the receiver acknowledged them. */
export function seqsByJob(requests: readonly ReceivedRequest[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of requests) {
    const { data } = parsed(r);
    (out[data.job_id] ??= []).push(data.seq);
  }
  return out;
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
