// The delivery worker: claims due outbox rows with a lease, sends them (signed at
// send time), and records the outcome. Order is kept per endpoint and ordering
// key by only ever claiming the first pending delivery of each; endpoints are
// served concurrently, with a per-endpoint cap so one slow receiver cannot take
// every slot, and a dead one only holds back its own deliveries (which wait for
// their retry time instead of being polled).
import type { AppContext } from '../context.ts';
import { createLaneRunner } from './lane.ts';
import { onOutboxWrite } from './outbox.ts';
import * as queue from './queue.ts';
import type { ClaimedDelivery } from './queue.ts';
import type { RetryPolicy } from './retry.ts';

export interface WebhookDeliveryOptions {
  /** Deliveries in flight at once in this process (default 16). */
  readonly concurrency?: number;
  /** ... of which at most this many to one endpoint URL (default 4). */
  readonly perEndpointConcurrency?: number;
  /** Poll interval when idle (default 500 ms); in-process writes wake the worker at once. */
  readonly pollMs?: number;
  /** Lease on a claimed delivery; another worker may take it over after (default timeout + 30 s). */
  readonly leaseMs?: number;
  /** Per-attempt timeout (default config.webhookTimeoutMs). */
  readonly timeoutMs?: number;
  /** Default config.webhookAllowPrivate. */
  readonly allowPrivate?: boolean;
  /** Retry schedule (retry.ts); defaults: 30 s doubling to 2 h, equal jitter, 24 h window. */
  readonly retry?: Partial<RetryPolicy>;
  readonly random?: () => number;
  /** Finished deliveries older than this are removed (default 14 days; 0 keeps them). */
  readonly retentionMs?: number;
  /** Only deliver these environments' events (tests, dedicated workers). */
  readonly envIds?: readonly string[];
}

export interface WebhookDelivery {
  /** Stops polling, aborts attempts in flight (not counted) and waits for them. */
  stop(): Promise<void>;
  /** Resolves once nothing is due or in flight (future retries may remain). */
  drain(timeoutMs?: number): Promise<void>;
  /** Polls now. */
  wake(): void;
}

const DAY_MS = 24 * 3600_000;
const PRUNE_EVERY_MS = 10 * 60_000;

export function startWebhookDelivery(ctx: AppContext, opts: WebhookDeliveryOptions = {}): WebhookDelivery {
  const db = ctx.db.kysely;
  const concurrency = opts.concurrency ?? 16;
  const perEndpoint = opts.perEndpointConcurrency ?? 4;
  const timeoutMs = opts.timeoutMs ?? ctx.config.webhookTimeoutMs;
  const leaseMs = opts.leaseMs ?? timeoutMs + 30_000;
  const retentionMs = opts.retentionMs ?? 14 * DAY_MS;
  const aborter = new AbortController();
  const runLane = createLaneRunner(ctx, {
    timeoutMs, leaseMs, allowPrivate: opts.allowPrivate ?? ctx.config.webhookAllowPrivate,
    retry: opts.retry ?? {}, random: opts.random ?? Math.random, signal: aborter.signal,
  });
  const inFlight = new Map<number, Promise<void>>();
  const perUrl = new Map<string, number>();
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  let lastPrune = 0;
  let soonTimer: NodeJS.Timeout | null = null;
  let recheckTimer: NodeJS.Timeout | null = null;

  function start(row: ClaimedDelivery): void {
    perUrl.set(row.url, (perUrl.get(row.url) ?? 0) + 1);
    const task = runLane(row)
      .catch((err: unknown) => ctx.log.error({ err, delivery_id: row.id }, 'webhook delivery bookkeeping failed'))
      .finally(() => {
        inFlight.delete(row.id);
        const left = (perUrl.get(row.url) ?? 1) - 1;
        if (left > 0) perUrl.set(row.url, left); else perUrl.delete(row.url);
        wake(); // a slot is free
      });
    inFlight.set(row.id, task);
  }

  /** One round: claims as many first-in-line deliveries as there are free slots. */
  async function fillSlots(): Promise<void> {
    const free = concurrency - inFlight.size;
    if (free <= 0 || stopped) return;
    const now = ctx.now();
    const saturated = [...perUrl].filter(([, n]) => n >= perEndpoint).map(([url]) => url);
    const limit = free * 4;
    const due = await queue.findDue(db, now, { limit, excludeUrls: saturated, envIds: opts.envIds });
    const picked: number[] = [];
    const planned = new Map(perUrl);
    for (const candidate of due) {
      if (picked.length >= free) break;
      const n = planned.get(candidate.url) ?? 0;
      if (n >= perEndpoint) continue;
      planned.set(candidate.url, n + 1);
      picked.push(candidate.id);
    }
    const claimed = await queue.claim(db, picked, now, leaseMs);
    for (const row of claimed) start(row);
    if (due.length === limit || (claimed.length > 0 && picked.length < due.length)) again = true;
  }

  async function maybePrune(): Promise<void> {
    const now = ctx.now();
    if (retentionMs <= 0 || now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const removed = await queue.pruneFinished(db, now - retentionMs);
    if (removed > 0) ctx.log.info({ removed }, 'pruned finished webhook deliveries');
  }

  async function loop(): Promise<void> {
    try {
      do {
        again = false;
        await fillSlots();
      } while (again && !stopped);
      await maybePrune();
    } catch (err) {
      ctx.log.error({ err }, 'webhook delivery poll failed');
    }
  }

  function wake(): void {
    if (stopped) return;
    if (ticking) { again = true; return; }
    ticking = loop().finally(() => {
      ticking = null;
      if (again && !stopped) wake();
    });
  }

  // An in-process write may wake us before its transaction commits: look again shortly after.
  function wakeAfterWrite(): void {
    soonTimer ??= setTimeout(() => { soonTimer = null; wake(); }, 2);
    recheckTimer ??= setTimeout(() => { recheckTimer = null; wake(); }, 50);
  }

  const unsubscribe = onOutboxWrite(wakeAfterWrite);
  const poller = setInterval(wake, opts.pollMs ?? 500);
  wake();

  async function drain(limitMs = 30_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      wake();
      while (ticking || inFlight.size > 0) await Promise.allSettled([ticking, ...inFlight.values()]);
      const due = await queue.findDue(db, ctx.now(), { limit: 1, envIds: opts.envIds });
      if (due.length === 0 && inFlight.size === 0 && !ticking) return;
      if (Date.now() > deadline) throw new Error('webhook delivery did not drain in time');
    }
  }

  async function stop(): Promise<void> {
    stopped = true;
    unsubscribe();
    clearInterval(poller);
    for (const timer of [soonTimer, recheckTimer]) if (timer) clearTimeout(timer);
    aborter.abort();
    while (ticking || inFlight.size > 0) await Promise.allSettled([ticking, ...inFlight.values()]);
  }

  return { stop, drain, wake };
}
