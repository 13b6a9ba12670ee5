// Idempotency-Key on run-job: the same key (per environment and tenant) returns
// the same job — or the same queued job — for 24 hours.
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { listQueued } from './queue.ts';
import { openTicket } from './request.ts';
import { findJobByIdempotencyKey } from './store.ts';
import { queuedJobView, runJobView } from './views.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

type Obj = Record<string, unknown>;

export type CreateJobOutcome =
  | { kind: 'job'; job: Obj & { job_id: string } }
  | { kind: 'queued'; queued: Obj & { id: number; job_id: string | null } }
  | { kind: 'skipped'; activeJobId: string };

export async function findIdempotent(ctx: AppContext, scope: TenantScope, flowId: string, key: string): Promise<CreateJobOutcome | null> {
  const since = ctx.now() - IDEMPOTENCY_WINDOW_MS;
  const job = await findJobByIdempotencyKey(ctx.db.kysely, scope, key);
  if (job && Number(job.created_at) >= since) return { kind: 'job', job: runJobView(job) };
  // Still queued: the key is inside the sealed request (a lane holds few queued jobs).
  for (const queued of await listQueued(ctx.db.kysely, scope, flowId)) {
    if (Number(queued.created_at) < since) continue;
    const ticket = openTicket(ctx, queued.request_enc);
    if (ticket.idempotencyKey === key) return { kind: 'queued', queued: queuedJobView(queued, ticket) };
  }
  return null;
}
