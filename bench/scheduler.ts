// Scheduler bench: 100,000 enabled schedules (half every-minute with a 1-minute jitter
// window, half hourly with a 60-minute window) in embedded mode (SQLite), with job
// execution stubbed at the dispatch boundary only. Usage:
//   npm run bench:scheduler [-- --schedules 100000] [--seconds 60]
// Reports: idle tick cost at growing schedule counts, real-time lateness of each fire
// against its due time (p50/p99/max), burst capacity (fires/s draining everything
// due at once), and peak RSS. Goals: p99 lateness < 1 s, idle tick independent of the
// count, RSS < 300 MB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { Kysely, SqliteDialect } from 'kysely';
import { createContext, masterKeyText, sqliteFileOf } from '../src/bootstrap.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { migrateToLatest, type Db } from '../src/db/connect.ts';
import type { Database } from '../src/db/types.ts';
import type { AppContext } from '../src/context.ts';
import { createSecretBox, generateMasterKey, parseMasterKey } from '../src/crypto/secret-box.ts';
import { createEnvironment } from '../src/environments/service.ts';
import type { Dispatch } from '../src/schedules/fire.ts';
import { createScheduler, startScheduler } from '../src/schedules/scheduler.ts';
import { earliestNextRun } from '../src/schedules/store.ts';
import { parseScheduleExpression, type ParsedExpression } from '../src/schedules/expression.ts';
import { nextRunAt } from '../src/schedules/next-run.ts';

const GOALS = { p99LatenessMs: 1000, rssMb: 300, idleGrowth: 3 };
const { values: args } = parseArgs({ options: {
  schedules: { type: 'string', default: '100000' },
  seconds: { type: 'string', default: '60' },
  // Emulates a prepared-statement cache in the SQLite store (proposed for src/db/connect.ts).
  'statement-cache': { type: 'boolean', default: false },
} });
const TOTAL = Number(args.schedules);
const SECONDS = Number(args.seconds);
const ENV = 'bench';
const FLOW = 'flow1';

const KINDS = [
  { expression: '* * * * *', timezone: 'UTC', jitter_minutes: 1 },
  { expression: '0 * * * *', timezone: 'UTC', jitter_minutes: 60 },
];
const PARSED = KINDS.map((k) => parseScheduleExpression(k.expression));
const timingOf = (i: number) => KINDS[i % 2] as (typeof KINDS)[number];
const tenantOf = (i: number) => `tenant${i}`;
const nextOf = (i: number, after: number) => nextRunAt({
  expression: PARSED[i % 2] as ParsedExpression, timezone: 'UTC', jitterMinutes: timingOf(i).jitter_minutes, tenant: tenantOf(i), after: new Date(after),
})?.getTime() ?? null;

// Seeding goes through one raw prepared statement on a second connection: it is not
// what is measured, and Kysely would prepare a fresh (native-memory) statement per batch.
function seeder(file: string) {
  const db = new SQLite(file);
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare(`INSERT INTO schedules (id, env_id, flow_id, tenant, connector_id, job_type, expression, timezone,
    state, jitter_minutes, overlap, overrides_enc, next_run_at, last_run_at, last_job_id, skipped_runs, inherited, created_at, updated_at)
    VALUES (?, '${ENV}', '${FLOW}', ?, '', 'read', ?, 'UTC', 'ENABLED', ?, 'skip', NULL, ?, NULL, NULL, 0, 1, ?, ?)`);
  const update = db.prepare('UPDATE schedules SET next_run_at = ? WHERE id = ?');
  return {
    /** Inserts schedules [from, to) timed after `after`. */
    insert: db.transaction((from: number, to: number, after: number) => {
      const now = Date.now();
      for (let i = from; i < to; i++) {
        const timing = timingOf(i);
        insert.run(`sch_${i}`, tenantOf(i), timing.expression, timing.jitter_minutes, nextOf(i, after), now, now);
      }
    }),
    /** Re-times every schedule to its first run after `after`. */
    retime: db.transaction((after: number) => {
      for (let i = 0; i < TOTAL; i++) update.run(nextOf(i, after), `sch_${i}`);
    }),
    close: () => db.close(),
  };
}

/** Mean cost of one idle loop iteration (due scan + earliest-next probe) with nothing due. */
async function idleTickMicros(ctx: AppContext, quietNow: number): Promise<number> {
  const scheduler = createScheduler(ctx, { now: () => quietNow, dispatch: async () => { throw new Error('nothing is due'); } });
  const rounds = 300;
  for (let i = 0; i < 300; i++) await scheduler.tick(); // warm up the JIT and the page cache
  const start = performance.now();
  for (let i = 0; i < rounds; i++) {
    const result = await scheduler.tick();
    if (result.due !== 0) throw new Error('idle tick found due schedules');
    await earliestNextRun(ctx.db.kysely);
  }
  return ((performance.now() - start) * 1000) / rounds;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

const stubDispatch = (onFire: (dueAt: number) => void): Dispatch => {
  let n = 0;
  return async (_ctx, _scope, _flow, _request, origin) => {
    onFire(origin.dueAt);
    return { kind: 'job', job: { job_id: `job_${++n}` } };
  };
};

/** The embedded context, but with better-sqlite3's prepare memoised per SQL text. */
async function contextWithStatementCache(config: Config): Promise<AppContext> {
  const database = new SQLite(sqliteFileOf(config));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  const prepare = database.prepare.bind(database);
  const statements = new Map<string, ReturnType<typeof prepare>>();
  database.prepare = ((text: string) => statements.get(text) ?? statements.set(text, prepare(text)).get(text)) as typeof database.prepare;
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const db: Db = { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
  await migrateToLatest(db);
  const secrets = createSecretBox(parseMasterKey(masterKeyText(config)));
  return { config, db, secrets, log: pino({ level: 'silent' }), now: Date.now };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-bench-sched-'));
  const config = loadConfig({}, { dataDir, secretKey: generateMasterKey(), logLevel: 'silent' });
  const ctx = args['statement-cache'] ? await contextWithStatementCache(config) : await createContext(config, { logger: pino({ level: 'silent' }) });
  try {
    await createEnvironment(ctx, ENV);
    await ctx.db.kysely.insertInto('flows').values({ env_id: ENV, flow_id: FLOW, spec: '{}', created_at: Date.now(), updated_at: Date.now() }).execute();

    // 1. Idle tick cost as the schedule count grows (clock one hour before anything is due).
    const base = Date.now();
    const idle: Array<[number, number]> = [];
    let inserted = 0;
    const setupStart = performance.now();
    const seed = seeder(sqliteFileOf(config));
    for (const count of [1_000, 10_000, TOTAL].filter((c, i, all) => c <= TOTAL && all.indexOf(c) === i)) {
      seed.insert(inserted, count, base);
      inserted = count;
      idle.push([count, await idleTickMicros(ctx, base - 3600_000)]);
    }
    const setupSeconds = (performance.now() - setupStart) / 1000;

    // 2. Real time: the loop as the server runs it, for SECONDS seconds of due times
    // starting 10 s from now (re-timing 100,000 rows takes a few seconds; none may start overdue).
    const windowStart = Date.now() + 10_000;
    seed.retime(windowStart);
    seed.close();
    const rssBeforeRealTime = process.resourceUsage().maxRSS / 1024;
    const lateness: number[] = [];
    const running = await startScheduler(ctx, { dispatch: stubDispatch((dueAt) => lateness.push(Date.now() - dueAt)), now: Date.now });
    await new Promise((resolve) => setTimeout(resolve, windowStart + SECONDS * 1000 - Date.now()));
    await running.stop();
    lateness.sort((a, b) => a - b);

    // 3. Burst: every schedule due at once (two hours ahead), drained as fast as possible.
    const burstNow = Date.now() + 2 * 3600_000;
    let burstFires = 0;
    const burst = createScheduler(ctx, { dispatch: stubDispatch(() => { burstFires += 1; }), now: () => burstNow });
    const burstStart = performance.now();
    await burst.drain();
    const burstSeconds = (performance.now() - burstStart) / 1000;

    const rssMb = process.resourceUsage().maxRSS / 1024;
    const p99 = percentile(lateness, 99);
    const idleGrowth = (idle.at(-1)?.[1] ?? 0) / (idle[0]?.[1] ?? 1);
    console.log(`\n## Scheduler bench (${TOTAL.toLocaleString('en-US')} schedules, SQLite, dispatch stubbed${args['statement-cache'] ? ', statement cache' : ''})\n`);
    console.log(`Setup (insert + idle measurements): ${setupSeconds.toFixed(1)} s\n`);
    console.log('| Schedules | Idle tick (due scan + next probe) |\n|---:|---:|');
    for (const [count, micros] of idle) console.log(`| ${count.toLocaleString('en-US')} | ${micros.toFixed(0)} µs |`);
    console.log(`\n| Figure | Value | Goal |\n|---|---:|---|`);
    console.log(`| Real-time fires (${SECONDS} s) | ${lateness.length.toLocaleString('en-US')} (${(lateness.length / SECONDS).toFixed(0)}/s) | |`);
    console.log(`| Lateness p50 | ${percentile(lateness, 50)} ms | |`);
    console.log(`| Lateness p99 | ${p99} ms | < ${GOALS.p99LatenessMs} ms |`);
    console.log(`| Lateness max | ${lateness.at(-1)} ms | |`);
    console.log(`| Burst capacity | ${(burstFires / burstSeconds).toFixed(0)} fires/s (${burstFires.toLocaleString('en-US')} in ${burstSeconds.toFixed(2)} s) | |`);
    console.log(`| Idle tick growth ${idle[0]?.[0]} → ${idle.at(-1)?.[0]} | ${idleGrowth.toFixed(2)}x | < ${GOALS.idleGrowth}x |`);
    console.log(`| Peak RSS (before the real-time phase) | ${rssMb.toFixed(0)} MB (${rssBeforeRealTime.toFixed(0)} MB) | < ${GOALS.rssMb} MB |`);
    const ok = p99 < GOALS.p99LatenessMs && rssMb < GOALS.rssMb && idleGrowth < GOALS.idleGrowth && burstFires === TOTAL;
    console.log(`\nGoals ${ok ? 'met' : 'NOT met'}.`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await ctx.db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
