// The delivery worker's queries over the outbox. Like the job workers, the
// delivery worker serves every environment, so these take no scope: they only
// ever touch rows through ids the worker claimed. Safe with several workers and
// processes: a claim is a compare-and-set on the lease, and finishing an attempt
// is fenced by the attempt number the claim produced.
import { sql, type Kysely } from 'kysely';
import type { Selectable } from 'kysely';
import type { Database, WebhookEventsTable } from '../db/types.ts';

const CLAIMED_COLUMNS = [
  'id', 'env_id', 'event_type', 'ordering_key', 'url', 'secrets_enc', 'payload', 'attempts', 'first_attempt_at', 'created_at',
] as const;

/** A delivery this worker holds; `attempts` includes the attempt just claimed and is the fencing token. */
export type ClaimedDelivery = Pick<Selectable<WebhookEventsTable>, (typeof CLAIMED_COLUMNS)[number]>;

export interface DueCandidate { id: number; url: string }

export interface FindDueOptions {
  readonly limit: number;
  /** Endpoints with no free slot in this worker: their events are skipped. */
  readonly excludeUrls?: readonly string[];
  /** Restricts the worker to some environments (tests, dedicated workers). */
  readonly envIds?: readonly string[];
}

/**
 * Due, unleased pending deliveries that are first in line: no EARLIER pending
 * delivery exists for the same endpoint and ordering key (that one may be in
 * flight or waiting for a retry). Oldest due first.
 */
export async function findDue(db: Kysely<Database>, now: number, opts: FindDueOptions): Promise<DueCandidate[]> {
  let query = db.selectFrom('webhook_events as e').select(['e.id', 'e.url'])
    .where('e.status', '=', 'pending')
    .where('e.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('e.locked_until', 'is', null), eb('e.locked_until', '<=', now)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_events as p').select('p.id')
      .whereRef('p.ordering_key', '=', 'e.ordering_key')
      .whereRef('p.url', '=', 'e.url')
      .where('p.status', '=', 'pending')
      .whereRef('p.id', '<', 'e.id'))))
    .orderBy('e.next_attempt_at').orderBy('e.id').limit(opts.limit);
  if (opts.excludeUrls && opts.excludeUrls.length > 0) query = query.where('e.url', 'not in', [...opts.excludeUrls]);
  if (opts.envIds) query = query.where('e.env_id', 'in', opts.envIds.length > 0 ? [...opts.envIds] : ['']);
  return query.execute();
}

/** Leases the given deliveries (those still due and unleased) and counts the attempt. */
export async function claim(db: Kysely<Database>, ids: readonly number[], now: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  return db.updateTable('webhook_events')
    .set((eb) => ({
      locked_until: now + leaseMs,
      attempts: eb('attempts', '+', 1),
      first_attempt_at: eb.fn.coalesce('first_attempt_at', eb.val(now)),
    }))
    .where('id', 'in', [...ids])
    // Written so SQLite seeks the primary key instead of scanning the status index.
    .where(sql<string>`status || ''`, '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning(CLAIMED_COLUMNS)
    .execute();
}

/**
 * Claims the delivery right behind `row` on its endpoint and ordering key, when it
 * is due and unleased. Only called once `row` is no longer pending, which makes the
 * next one first in line (earlier ids were not pending when `row` was claimed).
 */
export async function claimNextInLane(db: Kysely<Database>, row: ClaimedDelivery, now: number, leaseMs: number): Promise<ClaimedDelivery | undefined> {
  // One statement: the next id of the lane, claimed if it is due and unleased.
  return db.updateTable('webhook_events')
    .set((eb) => ({
      locked_until: now + leaseMs,
      attempts: eb('attempts', '+', 1),
      first_attempt_at: eb.fn.coalesce('first_attempt_at', eb.val(now)),
    }))
    .where('id', '=', (eb) => eb.selectFrom('webhook_events as n').select('n.id')
      .where('n.ordering_key', '=', row.ordering_key).where('n.url', '=', row.url)
      .where('n.status', '=', 'pending').where('n.id', '>', row.id)
      .orderBy('n.id').limit(1))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning(CLAIMED_COLUMNS)
    .executeTakeFirst();
}

export interface AttemptRecord {
  readonly status: 'delivered' | 'pending' | 'failed';
  /** When to try again (status pending). */
  readonly nextAttemptAt: number | null;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly at: number;
}

/** Stores an attempt's outcome and releases the lease; false when the lease was lost. */
export async function finishAttempt(db: Kysely<Database>, row: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
  const result = await db.updateTable('webhook_events').set({
    status: record.status,
    locked_until: null,
    ...(record.nextAttemptAt !== null ? { next_attempt_at: record.nextAttemptAt } : {}),
    last_status_code: record.statusCode,
    last_latency_ms: record.latencyMs,
    last_error: record.error,
    delivered_at: record.status === 'delivered' ? record.at : null,
  }).where('id', '=', row.id).where('attempts', '=', row.attempts).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Deliveries queued behind one that waits for a retry cannot go before it; moving
 * their due time along keeps them out of every poll until then.
 */
export async function deferFollowers(db: Kysely<Database>, row: ClaimedDelivery, until: number): Promise<void> {
  await db.updateTable('webhook_events').set({ next_attempt_at: until })
    .where('ordering_key', '=', row.ordering_key).where('url', '=', row.url)
    .where('status', '=', 'pending').where('id', '>', row.id).where('next_attempt_at', '<', until)
    .execute();
}

/** Gives a claimed delivery back without counting the attempt (shutdown). */
export async function releaseClaim(db: Kysely<Database>, row: ClaimedDelivery): Promise<void> {
  await db.updateTable('webhook_events').set((eb) => ({ locked_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', row.id).where('attempts', '=', row.attempts).where('status', '=', 'pending')
    .execute();
}

/** Removes finished deliveries created before `before`; returns how many. */
export async function pruneFinished(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db.deleteFrom('webhook_events')
    .where('status', 'in', ['delivered', 'failed']).where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
