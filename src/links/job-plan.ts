// What a job runs, resolved from the flow, the catalog and the tenant's link: the
// contract between links and the job engine (see docs/api.md "Connections").
import type { Kysely } from 'kysely';
import type { TenantScope } from '../auth/scope.ts';
import { getEntry, getFlow } from '../catalog/store.ts';
import type { CatalogEntry, CatalogKind, ExportSide, FlowSpec, JobType, RunSpec } from '../catalog/types.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { fieldMapHash, type FieldMap } from './field-map.ts';
import { liveConfig } from './resolve.ts';
import { clearStates, getLink, listLinks, patchLink } from './store.ts';
import type { LinkKey, LinkKind, LinkRow } from './types.ts';

export type { RunSpec } from '../catalog/types.ts';
export type { FieldMap } from './field-map.ts';
export { fieldMapHash } from './field-map.ts';

export interface JobPlan {
  flowVersion: 1 | 2;
  flowId: string;
  link: { kind: 'source' | 'connector'; name: string };
  source: { name: string; run: RunSpec; config: Record<string, unknown>; catalog: unknown | null; fieldMap: FieldMap | null; state: unknown | null };
  target: { name: string; run: RunSpec; config: Record<string, unknown> } | null;
  etl: { mode: 'none' | 'field_map' | 'command'; command?: string[] };
  discover: 'auto' | 'always';
  fieldMapChangedSinceDiscovery: boolean;
}

export interface PlanSelection {
  tap?: string;
  connectorId?: string;
  jobType?: JobType;
}

type Db = Kysely<Database>;

async function requireEntry(ctx: AppContext, scope: TenantScope, kind: CatalogKind, name: string): Promise<CatalogEntry> {
  const stored = await getEntry(ctx.db.kysely, scope, kind, name);
  const what = kind === 'source' ? 'source (tap)' : kind;
  if (!stored) throw new BadRequestError(`The ${what} "${name}" is not in the catalog of environment "${scope.envId}"`);
  return stored.entry;
}

/** The link a job uses: the named one, or the tenant's only link of that kind in the flow. */
async function pickLink(ctx: AppContext, scope: TenantScope, flow: FlowSpec, kind: LinkKind, name: string | undefined): Promise<LinkRow> {
  const noun = kind === 'source' ? 'source' : 'connector';
  if (name !== undefined) {
    const link = await getLink(ctx.db.kysely, scope, flow.id, { kind, name });
    if (!link) throw new NotFoundError(`Tenant "${scope.tenant}" has not linked the ${noun} "${name}" in flow "${flow.id}"`);
    return link;
  }
  const links = await listLinks(ctx.db.kysely, scope, flow.id, kind);
  if (links.length === 0) throw new NotFoundError(`Tenant "${scope.tenant}" has no linked ${noun} in flow "${flow.id}"`);
  if (links.length > 1) {
    const param = kind === 'source' ? 'tap' : 'connector_id';
    throw new BadRequestError(`Tenant "${scope.tenant}" has several linked ${noun}s in flow "${flow.id}"; pass "${param}"`);
  }
  return links[0] as LinkRow;
}

async function linkSource(ctx: AppContext, scope: TenantScope, link: LinkRow, entry: CatalogEntry, run: RunSpec) {
  const live = await liveConfig(ctx.db.kysely, ctx.secrets, scope, link);
  if (live.disconnected) throw new BadRequestError(`The linked ${link.kind} "${link.name}" is disconnected: ${live.error}`);
  return { name: link.name, run, config: { ...entry.config, ...live.config }, catalog: link.catalog?.catalog ?? null, fieldMap: link.fieldMap, state: link.state ?? null };
}

/** v1 export target: the tenant's linked target, else the `default` tenant's, else the flow's. */
async function v1Target(ctx: AppContext, scope: TenantScope, flow: FlowSpec): Promise<JobPlan['target']> {
  const own = (await listLinks(ctx.db.kysely, scope, flow.id, 'target'))[0];
  const defaults = scope.tenant === 'default' ? undefined
    : (await listLinks(ctx.db.kysely, { ...scope, tenant: 'default' }, flow.id, 'target'))[0];
  const name = own?.name ?? defaults?.name ?? flow.export?.name;
  if (name === undefined) return null;
  const entry = await requireEntry(ctx, scope, 'target', name);
  const layer = async (link: LinkRow | undefined, s: TenantScope) => {
    if (link?.name !== name) return {};
    const live = await liveConfig(ctx.db.kysely, ctx.secrets, s, link);
    return live.config;
  };
  const config = {
    ...entry.config,
    ...(flow.export?.name === name ? flow.export.config : {}),
    ...(await layer(defaults, { ...scope, tenant: 'default' })),
    ...(await layer(own, scope)),
  };
  return { name, run: entry.run as RunSpec, config };
}

async function connectorSide(ctx: AppContext, scope: TenantScope, side: ExportSide, jobType: JobType) {
  const entry = await requireEntry(ctx, scope, 'connector', side.name);
  const run = jobType === 'read' ? entry.read : entry.write;
  if (!run) throw new BadRequestError(`The connector "${side.name}" cannot ${jobType === 'read' ? 'read' : 'write'} data`);
  return { name: side.name, run, config: { ...entry.config, ...side.config } };
}

function changedSinceDiscovery(link: LinkRow): boolean {
  if (!link.catalog) return false;
  return link.catalog.field_map_hash !== fieldMapHash(link.fieldMap);
}

async function v1Plan(ctx: AppContext, scope: TenantScope, flow: FlowSpec, sel: PlanSelection): Promise<JobPlan> {
  const link = await pickLink(ctx, scope, flow, 'source', sel.tap);
  const entry = await requireEntry(ctx, scope, 'source', link.name);
  return {
    flowVersion: 1, flowId: flow.id, link: { kind: 'source', name: link.name },
    source: await linkSource(ctx, scope, link, entry, entry.run as RunSpec),
    target: await v1Target(ctx, scope, flow),
    etl: flow.etl, discover: flow.discover === 'always' || entry.discover === 'always' ? 'always' : 'auto',
    fieldMapChangedSinceDiscovery: changedSinceDiscovery(link),
  };
}

async function v2Plan(ctx: AppContext, scope: TenantScope, flow: FlowSpec, sel: PlanSelection): Promise<JobPlan> {
  const jobType = sel.jobType ?? 'read';
  const link = await pickLink(ctx, scope, flow, 'connector', sel.connectorId);
  const entry = await requireEntry(ctx, scope, 'connector', link.name);
  const run = jobType === 'read' ? entry.read : entry.write;
  if (!run || !(entry.job_types ?? []).includes(jobType)) {
    throw new BadRequestError(`The connector "${link.name}" does not support ${jobType} jobs`);
  }
  const tenantSide = await linkSource(ctx, scope, link, entry, run);
  const common = {
    flowVersion: 2 as const, flowId: flow.id, link: { kind: 'connector' as const, name: link.name },
    etl: flow.etl, discover: flow.discover === 'always' || entry.discover === 'always' ? 'always' as const : 'auto' as const,
    fieldMapChangedSinceDiscovery: changedSinceDiscovery(link),
  };
  if (jobType === 'read') {
    return { ...common, source: tenantSide, target: flow.readExport ? await connectorSide(ctx, scope, flow.readExport, 'write') : null };
  }
  if (!flow.writeSource) throw new BadRequestError(`Flow "${flow.id}" has no write-side source ("export.write"), so it cannot run write jobs`);
  const feed = await connectorSide(ctx, scope, flow.writeSource, 'read');
  // The link's catalog is the connector's own (read side, discovered when linked); the
  // feed is another tap, so a write job discovers it every time and does not store it.
  return {
    ...common,
    discover: 'always',
    source: { ...feed, catalog: null, fieldMap: tenantSide.fieldMap, state: tenantSide.state },
    target: { name: tenantSide.name, run: tenantSide.run, config: tenantSide.config },
  };
}

export async function resolveJobPlan(ctx: AppContext, scope: TenantScope, flowId: string, sel: PlanSelection): Promise<JobPlan> {
  const flow = await getFlow(ctx.db.kysely, ctx.secrets, scope, flowId);
  if (!flow) throw new NotFoundError(`Flow "${flowId}" not found in environment "${scope.envId}"`);
  if (flow.version === 1) {
    if (sel.connectorId !== undefined) throw new BadRequestError(`Flow "${flowId}" is a v1 flow: pass "tap", not "connector_id"`);
    return v1Plan(ctx, scope, flow, sel);
  }
  if (sel.tap !== undefined && sel.connectorId === undefined) return v2Plan(ctx, scope, flow, { ...sel, connectorId: sel.tap });
  return v2Plan(ctx, scope, flow, sel);
}

/** Stores the catalog a discover stage produced (with the hash of the field map it was made for). */
export async function saveDiscoveredCatalog(db: Db, scope: TenantScope, flowId: string, link: LinkKey, catalog: unknown, hash?: string, now: number = Date.now()): Promise<void> {
  let fmHash = hash ?? null;
  if (fmHash === null) {
    const row = await getLink(db, scope, flowId, link);
    fmHash = fieldMapHash(row?.fieldMap ?? null);
  }
  await patchLink(db, scope, flowId, link, { catalog: { catalog, field_map_hash: fmHash, discovered_at: now } }, now);
}

/** Stores the source state (bookmarks) a job committed. */
export async function commitSourceState(db: Db, scope: TenantScope, flowId: string, link: LinkKey, state: unknown, now: number = Date.now()): Promise<void> {
  await patchLink(db, scope, flowId, link, { state: state ?? null }, now);
}

/** Clears the stored state of one link (or every link of that kind in the flow); returns how many had one. */
export async function clearSourceState(db: Db, scope: TenantScope, flowId: string, link: { kind: LinkKind; name?: string }): Promise<number> {
  return clearStates(db, scope, flowId, link.kind, link.name);
}
