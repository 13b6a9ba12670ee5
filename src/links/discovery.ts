// Discovery outside jobs (docs/widget-compat.md GAP-2): start one for a link (also
// right after linking, best effort), and answer its status in the form the widget
// polls. The state is on the link (discovery-store.ts); the run is discovery-run.ts.
import crypto from 'node:crypto';
import type { TenantScope } from '../auth/scope.ts';
import { getEntry } from '../catalog/store.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { recordDiscoverEvent } from '../webhooks/events.ts';
import { flowFor, NAME_PARAM, requireLink } from './common.ts';
import { launchDiscovery, type DiscoverySpec } from './discovery-run.ts';
import { claimDiscovery } from './discovery-store.ts';
import { liveConfig } from './resolve.ts';
import type { DiscoveryState, LinkKey, LinkKind, LinkRow } from './types.ts';

export const LOST_MESSAGE = 'discovery lost: the process running it stopped';

type DiscoverableKind = Exclude<LinkKind, 'target'>;

/** What runs: the source's (or the v2 connector's read) run spec with the link's live config over the entry's defaults. */
async function discoverySpec(ctx: AppContext, scope: TenantScope, link: LinkRow): Promise<DiscoverySpec> {
  const entry = (await getEntry(ctx.db.kysely, scope, link.kind, link.name))?.entry;
  if (!entry) throw new BadRequestError(`"${link.name}" is no longer in the catalog of environment "${scope.envId}"`);
  const run = link.kind === 'connector' ? entry.read : entry.run;
  if (!run) throw new BadRequestError(`The connector "${link.name}" cannot read data, so it has nothing to discover`);
  const live = await liveConfig(ctx.db.kysely, ctx.secrets, scope, link);
  if (live.disconnected) throw new BadRequestError(`The linked ${link.kind} "${link.name}" is disconnected: ${live.error}`);
  return { run, config: { ...entry.config, ...live.config } };
}

/**
 * Claims the link's discovery state and starts the run. Without `supersede`, a live run
 * keeps it (false). The DISCOVER_STARTED event is written with the claim.
 */
async function begin(ctx: AppContext, scope: TenantScope, flowId: string, key: LinkKey, spec: DiscoverySpec, supersede: boolean): Promise<boolean> {
  const token = crypto.randomUUID();
  const now = ctx.now();
  const lostBefore = supersede ? Number.MAX_SAFE_INTEGER : now - ctx.config.workerLostAfterMs;
  const claimed = await ctx.db.kysely.transaction().execute(async (trx) => {
    if (!await claimDiscovery(trx, scope, flowId, key, token, now, lostBefore)) return false;
    await recordDiscoverEvent(trx, ctx, scope, { flowId, tenant: scope.tenant, connector: key.name, status: 'DISCOVER_STARTED' });
    return true;
  });
  if (claimed) launchDiscovery(ctx, { scope, flowId, key, token, spec });
  return claimed;
}

/** GET|POST …/discover: starts a discovery unless one runs already; answers at once. */
export async function startDiscovery(ctx: AppContext, scope: TenantScope, flowId: string, kind: DiscoverableKind, name: string) {
  await flowFor(ctx, scope, flowId, kind);
  const link = await requireLink(ctx, scope, flowId, kind, name);
  const started = await begin(ctx, scope, flowId, { kind, name }, await discoverySpec(ctx, scope, link), false);
  return { status: 'DISCOVER_STARTED', [NAME_PARAM[kind]]: name, flow_id: flowId, tenant: scope.tenant, started };
}

/**
 * Right after a link: discover in the background so `catalog=true` soon has a catalog
 * (the widget loops while it is null). Best effort: never fails the link. A new link
 * (new credentials, perhaps) supersedes a discovery still running with the old ones.
 */
export async function discoverAfterLink(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, name: string): Promise<void> {
  if (kind === 'target') return;
  try {
    const entry = (await getEntry(ctx.db.kysely, scope, kind, name))?.entry;
    if (!entry || entry.discover_on_link === false || (kind === 'connector' && !entry.read)) return;
    const link = await requireLink(ctx, scope, flowId, kind, name);
    await begin(ctx, scope, flowId, { kind, name }, await discoverySpec(ctx, scope, link), true);
  } catch (error) {
    ctx.log.warn({ err: error, flowId, link: name }, 'could not start the discovery of a new link');
  }
}

/** The stored state as it stands: a started run whose heartbeat stopped is lost (failed). */
export function effectiveDiscovery(state: DiscoveryState | null, now: number, lostAfterMs: number): DiscoveryState | null {
  if (state?.status !== 'DISCOVER_STARTED') return state;
  if ((state.heartbeatAt ?? state.startedAt) >= now - lostAfterMs) return state;
  return { ...state, status: 'DISCOVER_FAILED', message: LOST_MESSAGE, finishedAt: null };
}

/**
 * GET …/discover/poll. The widget polls until `status` is absent or STOPPED/STOPPING/
 * DEPROVISIONING (the upstream task states), so a finished discovery answers STOPPED and
 * gives its outcome in `discover_status` and `message`.
 */
export async function discoveryStatus(ctx: AppContext, scope: TenantScope, flowId: string, kind: DiscoverableKind, name: string) {
  await flowFor(ctx, scope, flowId, kind);
  const link = await requireLink(ctx, scope, flowId, kind, name);
  const state = effectiveDiscovery(link.discovery, ctx.now(), ctx.config.workerLostAfterMs);
  const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);
  return {
    status: state?.status === 'DISCOVER_STARTED' ? 'DISCOVER_STARTED' : 'STOPPED',
    discover_status: state?.status ?? null,
    ...(state?.message ? { message: state.message } : {}),
    [NAME_PARAM[kind]]: name, flow_id: flowId, tenant: scope.tenant,
    started_at: iso(state?.startedAt), finished_at: iso(state?.finishedAt),
    has_catalog: link.catalog !== null,
  };
}
