// Child process for the crash test: opens the same database as the test, records
// events (each in the transaction of a change, as a job status change does),
// starts a delivery worker, reports "recorded", and waits to be SIGKILLed while
// its worker is in the middle of sending the first event.
import pino from 'pino';
import { systemEnvScope } from '../../auth/scope.ts';
import { createContext } from '../../bootstrap.ts';
import { loadConfig } from '../../config.ts';
import { recordEvent } from '../outbox.ts';
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
}

const args = JSON.parse(process.argv[2]) as ChildArgs;
const config = loadConfig({}, {
  dataDir: args.dataDir, secretKey: args.secretKey, databaseUrl: args.databaseUrl, logLevel: 'silent', webhookAllowPrivate: true,
});
const ctx = await createContext(config, { logger: pino({ level: 'silent' }), pgSchema: args.pgSchema, migrate: false });
const scope = systemEnvScope(args.envId);
for (let seq = 1; seq <= args.count; seq += 1) {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('environments').set({ updated_at: ctx.now() }).where('env_id', '=', args.envId).execute();
    await recordEvent(trx, ctx, scope, {
      type: 'job.status_changed', orderingKey: `job:${args.jobId}`,
      data: { job_id: args.jobId, seq, status: `STATUS_${seq}` },
    });
  });
}
startWebhookDelivery(ctx, { envIds: [args.envId], leaseMs: args.leaseMs, timeoutMs: 60_000, pollMs: 20 });
process.stdout.write('recorded\n');
setInterval(() => {}, 60_000); // stay alive until killed
