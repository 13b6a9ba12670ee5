// Deterministic per-tenant jitter: spreads tenants that share one schedule
// (e.g. the default tenant's `0 * * * *`) across a window instead of all firing
// at :00. Derived only from a hash of the ids, so every process, restart and
// version computes the same offset without storing it.
import { createHash } from 'node:crypto';

/** Bumping this re-shuffles every tenant's offset; do so only deliberately. */
const JITTER_HASH_DOMAIN = 'tapline-jitter-v1';

/**
 * The tenant's offset in milliseconds, a whole number of seconds in
 * [0, jitterMinutes * 60000). 0 when jitter is off (null, undefined or 0).
 * `scheduleKey`, when given, is hashed too, so one tenant gets independent
 * offsets on different schedules; without it the offset depends on the tenant alone.
 */
export function jitterOffsetMs(tenant: string, jitterMinutes: number | null | undefined, scheduleKey?: string): number {
  if (jitterMinutes === null || jitterMinutes === undefined || jitterMinutes === 0) return 0;
  if (!Number.isSafeInteger(jitterMinutes) || jitterMinutes < 0) {
    throw new RangeError(`jitterMinutes must be a non-negative whole number, got ${jitterMinutes}`);
  }
  const slots = BigInt(jitterMinutes * 60);
  const digest = createHash('sha256')
    .update(`${JITTER_HASH_DOMAIN}\0${scheduleKey ?? ''}\0${tenant}`)
    .digest();
  // 64 hash bits modulo at most a few million slots: bias below 1e-12, i.e. uniform.
  return Number(digest.readBigUInt64BE(0) % slots) * 1000;
}
