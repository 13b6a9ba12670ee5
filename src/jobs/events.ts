// The job.status_changed webhook event, written in the transaction of the change
// (see webhooks/outbox.ts), and the transaction helper the job modules share.
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import { lifecycleOverride } from './request.ts';
import { eventView, type JobRow } from './views.ts';

/** Runs `fn` in `db` when it already is a transaction, else in a new one. */
export async function inTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** Records the job.status_changed event of `row` (`previous` null when the job was just created). */
export async function recordStatusEvent(trx: Kysely<Database>, ctx: AppContext, scope: EnvScope, row: JobRow, previous: string | null): Promise<void> {
  await recordEvent(trx, ctx, scope, {
    type: 'job.status_changed',
    orderingKey: `job:${row.job_id}`,
    data: eventView(row, previous),
    override: lifecycleOverride(ctx, row.request_enc),
  });
}
