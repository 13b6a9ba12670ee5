// Sending the deliveries of one lane (an endpoint URL + ordering key) in order: an
// attempt, then its outcome stored together with the claim of the lane's next
// delivery in one transaction, so a busy lane costs one commit per delivery and
// never waits for a poll.
import { sql } from 'kysely';
import { systemEnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { activeWebhookSecrets } from '../environments/service.ts';
import { displayUrl, planAfterAttempt, sendDelivery } from './deliver.ts';
import * as queue from './queue.ts';
import type { AttemptRecord, ClaimedDelivery } from './queue.ts';
import type { RetryPolicy } from './retry.ts';
import type { SendResult } from './send.ts';

/** Deliveries one lane sends in a row before giving its slot back to the poll. */
const LANE_RUN = 100;

export interface LaneSettings {
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly allowPrivate: boolean;
  readonly retry: Partial<RetryPolicy>;
  readonly random: () => number;
  /** Aborted on shutdown; attempts cut short are given back, not counted. */
  readonly signal: AbortSignal;
}

export function createLaneRunner(ctx: AppContext, settings: LaneSettings): (first: ClaimedDelivery) => Promise<void> {
  const db = ctx.db.kysely;
  const stopping = () => settings.signal.aborted;

  async function secretsFor(row: ClaimedDelivery, cache: Map<string, Promise<string[]>>): Promise<string[]> {
    if (row.secrets_enc !== null) return ctx.secrets.openJson<string[]>(row.secrets_enc);
    let secrets = cache.get(row.env_id);
    if (!secrets) cache.set(row.env_id, secrets = activeWebhookSecrets(ctx, systemEnvScope(row.env_id)));
    return secrets;
  }

  /** Sends one attempt; null when shutdown cut it short and the claim was given back. */
  async function attempt(row: ClaimedDelivery, cache: Map<string, Promise<string[]>>): Promise<AttemptRecord | null> {
    let result: SendResult;
    try {
      const secrets = await secretsFor(row, cache);
      result = await sendDelivery(row, secrets, { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate, signal: settings.signal, now: ctx.now });
    } catch (err) {
      result = { ok: false, latencyMs: 0, error: { kind: 'connection', message: `internal: ${(err as Error).message}` } };
    }
    if (result.error?.kind === 'aborted' && stopping()) {
      await queue.releaseClaim(db, row);
      return null;
    }
    return planAfterAttempt(result, row, { now: ctx.now(), retry: settings.retry, random: settings.random });
  }

  /** Stores the outcome and, when the lane goes on, claims its next delivery in the same transaction. */
  async function settle(row: ClaimedDelivery, record: AttemptRecord, goOn: boolean): Promise<ClaimedDelivery | undefined> {
    const { kept, next } = await db.transaction().execute(async (trx) => {
      // Losing this bookkeeping in a crash only means sending again (receivers dedupe on
      // webhook-id), so PostgreSQL need not wait for the WAL flush.
      if (ctx.db.dialect === 'postgres') await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      const kept = await queue.finishAttempt(trx, row, record);
      if (record.status === 'pending') await queue.deferFollowers(trx, row, record.nextAttemptAt!);
      const next = kept && goOn && record.status !== 'pending' ? await queue.claimNextInLane(trx, row, ctx.now(), settings.leaseMs) : undefined;
      return { kept, next };
    });
    logAttempt(row, record, kept);
    return next;
  }

  function logAttempt(row: ClaimedDelivery, record: AttemptRecord, kept: boolean): void {
    const fields = {
      delivery_id: row.id, event_type: row.event_type, url: displayUrl(row.url), attempt: row.attempts,
      status_code: record.statusCode, latency_ms: record.latencyMs,
    };
    if (!kept) ctx.log.warn(fields, 'webhook delivery lease expired before the attempt finished; outcome discarded');
    else if (record.status === 'delivered') ctx.log.debug(fields, 'webhook delivered');
    else if (record.status === 'failed') ctx.log.warn({ ...fields, error: record.error }, 'webhook delivery failed');
    else ctx.log.info({ ...fields, error: record.error, next_attempt_at: new Date(record.nextAttemptAt!).toISOString() }, 'webhook delivery will be retried');
  }

  /** Delivers `first`, then the lane's next ones while they are due; a retry or a lost claim ends the run. */
  return async function runLane(first: ClaimedDelivery): Promise<void> {
    const cache = new Map<string, Promise<string[]>>();
    let row: ClaimedDelivery | undefined = first;
    for (let run = 1; row && !stopping(); run += 1) {
      const record = await attempt(row, cache);
      if (!record) return;
      row = await settle(row, record, run < LANE_RUN && !stopping());
    }
    if (row) await queue.releaseClaim(db, row); // claimed just as we stopped
  };
}
