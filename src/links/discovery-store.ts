// The discover_* columns of `links` (migration 011): the state of a link's latest
// discovery outside jobs. A run owns the state through its token: it claims it
// (compare-and-set: no live run may hold it), beats while it runs, and finishes it
// only if it still owns it.
import type { Kysely } from 'kysely';
import type { TenantScope } from '../auth/scope.ts';
import type { Database } from '../db/types.ts';
import type { DiscoverStatus, LinkKey } from './types.ts';

type Db = Kysely<Database>;

function linkUpdate(db: Db, scope: TenantScope, flowId: string, key: LinkKey) {
  return db.updateTable('links')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', '=', key.kind).where('name', '=', key.name);
}

/**
 * Takes the link's discovery state for run `token`, unless a live run holds it (started,
 * with a heartbeat at or after `lostBefore`). Returns false when one does, or the link is gone.
 */
export async function claimDiscovery(db: Db, scope: TenantScope, flowId: string, key: LinkKey, token: string, now: number, lostBefore: number): Promise<boolean> {
  const result = await linkUpdate(db, scope, flowId, key).set({
    discover_status: 'DISCOVER_STARTED', discover_message: null, discover_token: token,
    discover_started_at: now, discover_finished_at: null, discover_heartbeat_at: now,
  }).where((eb) => eb.or([
    eb('discover_status', 'is', null),
    eb('discover_status', '!=', 'DISCOVER_STARTED'),
    eb('discover_heartbeat_at', 'is', null),
    eb('discover_heartbeat_at', '<', lostBefore),
  ])).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Keeps run `token` alive; false when it no longer owns the state. */
export async function beatDiscovery(db: Db, scope: TenantScope, flowId: string, key: LinkKey, token: string, now: number): Promise<boolean> {
  const result = await linkUpdate(db, scope, flowId, key).set({ discover_heartbeat_at: now })
    .where('discover_token', '=', token).where('discover_status', '=', 'DISCOVER_STARTED').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends run `token` with its outcome; false (nothing written) when it no longer owns the state. */
export async function finishDiscovery(
  db: Db, scope: TenantScope, flowId: string, key: LinkKey, token: string,
  outcome: { status: Exclude<DiscoverStatus, 'DISCOVER_STARTED'>; message: string | null; now: number },
): Promise<boolean> {
  const result = await linkUpdate(db, scope, flowId, key).set({
    discover_status: outcome.status, discover_message: outcome.message, discover_finished_at: outcome.now, discover_heartbeat_at: null,
  }).where('discover_token', '=', token).where('discover_status', '=', 'DISCOVER_STARTED').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
