// Child process for the crash test: opens the same database as the test, records
// events — either each in the transaction of a change, or through real job status
// changes (transitionJob) of a job with an override_lifecycle_webhook — starts a
// delivery worker, reports "recorded", and waits to be SIGKILLed while its worker
// is in the middle of sending the first event.
import pino from 'pino';
import { systemEnvScope } from '../../auth/scope.ts';
import { createContext } from '../../bootstrap.ts';
import { loadConfig } from '../../config.ts';
import { transitionJob } from '../../jobs/status.ts';
import { recordEvent } from '../outbox.ts';
import { HAPPY_PATH, insertJobRow } from './job-row.ts';
import { startWebhookDelivery } from '../worker.ts';

interface ChildArgs {
  dataDir: string;
  secretKey: string;
  databaseUrl?: string;
  pgSchema?: string;
  envId: string;
  jobId: string;
  count: number;
  leaseMs: number;
  /** Drive a real job through its statuses instead, its events going to this override. */
  job?: { url: string; secret: string };
}

const args = JSON.parse(process.argv[2]) as ChildArgs;
const config = loadConfig({}, {
  dataDir: args.dataDir, secretKey: args.secretKey, databaseUrl: args.databaseUrl, logLevel: 'silent', webhookAllowPrivate: true,
});
const ctx = await createContext(config, { logger: pino({ level: 'silent' }), pgSchema: args.pgSchema, migrate: false });
const scope = systemEnvScope(args.envId);
async function recordThroughChanges(): Promise<void> {
  for (let seq = 1; seq <= args.count; seq += 1) {
    await ctx.db.kysely.transaction().execute(async (trx) => {
      await trx.updateTable('environments').set({ updated_at: ctx.now() }).where('env_id', '=', args.envId).execute();
      await recordEvent(trx, ctx, scope, {
        type: 'job.status_changed', orderingKey: `job:${args.jobId}`,
        data: { job_id: args.jobId, seq, status: `STATUS_${seq}` },
      });
    });
  }
}

async function recordThroughJob(override: { url: string; secret: string }): Promise<void> {
  await insertJobRow(ctx, scope, args.jobId, override);
  for (let step = 1; step < HAPPY_PATH.length; step += 1) {
    const moved = await transitionJob(ctx.db.kysely, ctx, scope, args.jobId, HAPPY_PATH[step - 1], HAPPY_PATH[step]);
    if (!moved) throw new Error(`job did not move to ${HAPPY_PATH[step]}`);
  }
}

if (args.job) await recordThroughJob(args.job);
else await recordThroughChanges();
startWebhookDelivery(ctx, { envIds: [args.envId], leaseMs: args.leaseMs, timeoutMs: 60_000, pollMs: 20 });
process.stdout.write('recorded\n');
setInterval(() => {}, 60_000); // stay alive until killed
