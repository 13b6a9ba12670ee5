// The scheduler loop. Each tick reads due schedules through the (state, next_run_at)
// index, claims each due time with a compare-and-set that also advances next_run_at,
// and dispatches only the runs it claimed, so any number of processes sharing one
// database fire each due time once. An idle tick is two index probes whatever the
// schedule count; between ticks it sleeps until the earliest next run (capped).
import type { BackgroundTask } from '../background.ts';
import type { AppContext } from '../context.ts';
import type { ParsedExpression } from './expression.ts';
import { createJobDispatch, fireArgs, type Dispatch } from './fire.ts';
import { nextRunAt } from './next-run.ts';
import * as store from './store.ts';
import type { ScheduleRow } from './store.ts';
import { parseExpression } from './validate.ts';

export interface SchedulerOptions {
  dispatch?: Dispatch;
  /** Epoch ms; defaults to ctx.now. */
  now?: () => number;
  /** Longest sleep between ticks; defaults to config.schedulerTickMs. */
  tickMs?: number;
  /**
   * Shortest sleep between ticks that found the batch not full (default 25 ms): runs
   * due within it are gathered into one tick, so dense schedules cost a few queries
   * per tick instead of a few per run.
   */
  minDelayMs?: number;
  /** Due rows read per query. */
  batchSize?: number;
  /** Dispatches in flight at once. */
  concurrency?: number;
  /** Only these environments' schedules (tests sharing one database, like the job worker's). */
  envIds?: readonly string[];
}

export interface TickResult {
  /** Due rows read. */
  due: number;
  /** Due times this process claimed (and dispatched). */
  claimed: number;
  failed: number;
  /** True when the batch was full: more may be due, tick again at once. */
  more: boolean;
}

export interface Scheduler {
  /** One pass: claim and dispatch everything due now (one batch). */
  tick(): Promise<TickResult>;
  /** Ticks until nothing is due. */
  drain(): Promise<TickResult>;
}

const PARSE_CACHE_LIMIT = 10_000;

export function createScheduler(ctx: AppContext, opts: SchedulerOptions = {}): Scheduler {
  const dispatch = opts.dispatch ?? createJobDispatch;
  const clock = opts.now ?? ctx.now;
  const batchSize = opts.batchSize ?? 1000;
  const concurrency = opts.concurrency ?? 16;
  const parsed = new Map<string, ParsedExpression>();

  function parsedOf(expression: string): ParsedExpression {
    let result = parsed.get(expression);
    if (result === undefined) {
      result = parseExpression(expression);
      if (parsed.size >= PARSE_CACHE_LIMIT) parsed.clear();
      parsed.set(expression, result);
    }
    return result;
  }

  /** Misfire rule: one run for the stored due time, then the first run strictly after now. */
  function nextAfter(row: ScheduleRow, now: number): number | null {
    const next = nextRunAt({
      expression: parsedOf(row.expression), timezone: row.timezone, jitterMinutes: row.jitter_minutes,
      tenant: row.tenant, after: new Date(now),
    });
    return next === null ? null : next.getTime();
  }

  function claimOf(row: ScheduleRow, now: number): store.Claim {
    const due = row.next_run_at as number;
    try {
      return { id: row.id, due, next: nextAfter(row, now) };
    } catch (error) {
      // A stored expression that no longer parses: stop it rather than retry every tick.
      ctx.log.error({ scheduleId: row.id, err: (error as Error).message }, 'schedule expression unusable; schedule stopped');
      return { id: row.id, due, next: null };
    }
  }

  interface Outcomes { jobIds: Map<string, string>; skipped: string[]; failed: number }

  async function fire(row: ScheduleRow, outcomes: Outcomes): Promise<void> {
    const { scope, request, origin } = fireArgs(ctx, row, row.next_run_at as number);
    try {
      // overlap=queue keeps at most one waiting run per schedule; a further one counts as skipped.
      if (row.overlap === 'queue' && await store.hasWaitingQueuedRun(ctx.db.kysely, scope, row.id)) {
        outcomes.skipped.push(row.id);
        return;
      }
      const outcome = await dispatch(ctx, scope, row.flow_id, request, origin);
      if (outcome.kind === 'job') outcomes.jobIds.set(row.id, String(outcome.job.job_id));
      if (outcome.kind === 'skipped') outcomes.skipped.push(row.id);
    } catch (error) {
      outcomes.failed += 1;
      ctx.log.warn({ scheduleId: row.id, envId: row.env_id, tenant: row.tenant, flowId: row.flow_id, err: (error as Error).message },
        'scheduled run could not start');
    }
  }

  async function tick(): Promise<TickResult> {
    const now = clock();
    const rows = await store.selectDue(ctx.db.kysely, now, batchSize, opts.envIds);
    const claimedIds = await store.claimDue(ctx.db.kysely, ctx.db.dialect, rows.map((row) => claimOf(row, now)), now);
    const claimed = rows.filter((row) => claimedIds.has(row.id));
    const outcomes: Outcomes = { jobIds: new Map(), skipped: [], failed: 0 };
    await forEachLimited(claimed, concurrency, (row) => fire(row, outcomes));
    await store.recordOutcomes(ctx.db.kysely, outcomes.jobIds, outcomes.skipped);
    return { due: rows.length, claimed: claimed.length, failed: outcomes.failed, more: rows.length === batchSize };
  }

  async function drain(): Promise<TickResult> {
    const total: TickResult = { due: 0, claimed: 0, failed: 0, more: false };
    for (;;) {
      const result = await tick();
      total.due += result.due;
      total.claimed += result.claimed;
      total.failed += result.failed;
      if (!result.more) return total;
    }
  }

  return { tick, drain };
}

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let index = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (index < items.length) await work(items[index++] as T);
  });
  await Promise.all(runners);
}

export interface RunningScheduler extends BackgroundTask {
  readonly scheduler: Scheduler;
}

/** Starts the loop; stop() waits for the tick in progress. */
export async function startScheduler(ctx: AppContext, opts: SchedulerOptions = {}): Promise<RunningScheduler> {
  const scheduler = createScheduler(ctx, opts);
  const clock = opts.now ?? ctx.now;
  const tickMs = opts.tickMs ?? ctx.config.schedulerTickMs;
  let running = true;
  let wake: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;

  const minDelayMs = Math.min(opts.minDelayMs ?? 25, tickMs);

  async function delayAfter(result: TickResult | null): Promise<number> {
    if (result?.more) return 0;
    const earliest = await store.earliestNextRun(ctx.db.kysely, opts.envIds);
    return earliest === null ? tickMs : Math.max(minDelayMs, Math.min(tickMs, earliest - clock()));
  }

  async function loop(): Promise<void> {
    while (running) {
      let delay = tickMs;
      try {
        delay = await delayAfter(await scheduler.tick());
      } catch (error) {
        ctx.log.error({ err: (error as Error).message }, 'scheduler tick failed');
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
    }
  }

  const done = loop();
  return {
    name: 'scheduler',
    scheduler,
    async stop() {
      running = false;
      clearTimeout(timer);
      wake?.();
      await done;
    },
  };
}
