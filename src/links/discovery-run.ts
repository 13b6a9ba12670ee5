// Discoveries outside jobs run in the background of the process that started them:
// `<tap> --discover` through the runner, at most MAX_PARALLEL at once per process,
// a heartbeat on the link while they run, and the outcome written in one transaction
// with the catalog and the webhook event. Never a connector process inside a transaction.
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { makeRedactor, secretStrings } from '../jobs/redact.ts';
import { resolveCommand, runDiscover, selectCatalog, type RunSpec, type SingerCatalog } from '../runner/index.ts';
import { recordDiscoverEvent } from '../webhooks/events.ts';
import { fieldMapHash } from './field-map.ts';
import { saveDiscoveredCatalog } from './job-plan.ts';
import { beatDiscovery, finishDiscovery } from './discovery-store.ts';
import { getLink } from './store.ts';
import type { LinkKey } from './types.ts';

/** Discovery processes one Tapline process runs at once; more wait (already DISCOVER_STARTED). */
export const MAX_PARALLEL_DISCOVERIES = 4;

export interface DiscoverySpec {
  run: RunSpec;
  config: Record<string, unknown>;
}

export interface DiscoveryTask {
  scope: TenantScope;
  flowId: string;
  key: LinkKey;
  /** Owns the link's discovery state (discovery-store.ts). */
  token: string;
  spec: DiscoverySpec;
}

interface Running {
  readonly task: DiscoveryTask;
  readonly controller: AbortController;
  done: Promise<void>;
}

interface ProcessState {
  readonly running: Set<Running>;
  active: number;
  readonly waiting: Array<() => void>;
}

const states = new WeakMap<AppContext, ProcessState>();

function stateOf(ctx: AppContext): ProcessState {
  let state = states.get(ctx);
  if (!state) {
    state = { running: new Set(), active: 0, waiting: [] };
    states.set(ctx, state);
  }
  return state;
}

const sameLink = (a: DiscoveryTask, b: DiscoveryTask) =>
  a.scope.envId === b.scope.envId && a.scope.tenant === b.scope.tenant && a.flowId === b.flowId && a.key.kind === b.key.kind && a.key.name === b.key.name;

/** Runs `task` in the background; an older run of the same link in this process is stopped. */
export function launchDiscovery(ctx: AppContext, task: DiscoveryTask): void {
  const state = stateOf(ctx);
  for (const other of state.running) if (sameLink(other.task, task)) other.controller.abort('superseded by a newer discovery of this link');
  const run: Running = { task, controller: new AbortController(), done: Promise.resolve() };
  state.running.add(run);
  run.done = runDiscovery(ctx, task, run.controller.signal)
    .catch((error: unknown) => ctx.log.error({ err: error, flowId: task.flowId, link: task.key.name }, 'could not record the end of a discovery'))
    .finally(() => state.running.delete(run));
}

/** Stops this process's run of one link (it was unlinked); its end is recorded as usual. */
export function cancelDiscovery(ctx: AppContext, scope: TenantScope, flowId: string, key: LinkKey, reason: string): void {
  const probe = { scope, flowId, key } as DiscoveryTask;
  for (const run of stateOf(ctx).running) if (sameLink(run.task, probe)) run.controller.abort(reason);
}

/** Stops this process's discoveries (they end DISCOVER_FAILED) and waits for them; for app shutdown. */
export async function stopDiscoveries(ctx: AppContext, reason = 'Tapline is stopping'): Promise<void> {
  const state = states.get(ctx);
  if (!state) return;
  const runs = [...state.running];
  for (const run of runs) run.controller.abort(reason);
  await Promise.all(runs.map((run) => run.done));
}

/** Number of discoveries this process is running or holding (tests, diagnostics). */
export function runningDiscoveries(ctx: AppContext): number {
  return states.get(ctx)?.running.size ?? 0;
}

async function slot(state: ProcessState, signal: AbortSignal): Promise<void> {
  while (state.active >= MAX_PARALLEL_DISCOVERIES) {
    signal.throwIfAborted();
    await new Promise<void>((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const at = state.waiting.indexOf(wake); // a stopped run gives up its place in the line
        if (at !== -1) state.waiting.splice(at, 1);
        resolve();
      };
      state.waiting.push(wake);
      signal.addEventListener('abort', leave, { once: true });
    });
  }
  signal.throwIfAborted();
  state.active++;
}

function release(state: ProcessState): void {
  state.active--;
  state.waiting.shift()?.();
}

function reasonOf(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `stopped: ${typeof signal.reason === 'string' ? signal.reason : 'cancelled'}`;
  return error instanceof Error ? error.message : String(error);
}

async function runDiscovery(ctx: AppContext, task: DiscoveryTask, signal: AbortSignal): Promise<void> {
  const { scope, flowId, key, token } = task;
  const beat = setInterval(() => {
    beatDiscovery(ctx.db.kysely, scope, flowId, key, token, ctx.now()).catch(() => {});
  }, ctx.config.heartbeatMs);
  beat.unref();
  const state = stateOf(ctx);
  let outcome: { catalog: SingerCatalog } | { message: string };
  try {
    await slot(state, signal);
    try {
      outcome = {
        catalog: await runDiscover({
          baseEnv: ctx.config.connectorBaseEnv, signal, timeoutMs: ctx.config.stageTimeoutMs,
          connector: resolveCommand(task.spec.run), config: task.spec.config,
        }),
      };
    } finally {
      release(state);
    }
  } catch (error) {
    // The message may quote the tap's stderr: its config values are taken out.
    outcome = { message: makeRedactor(secretStrings(task.spec.config))(reasonOf(error, signal)) };
  } finally {
    clearInterval(beat);
  }
  await recordOutcome(ctx, task, outcome);
}

/** The outcome, the catalog (selection marked from the field map) and the event, together. */
async function recordOutcome(ctx: AppContext, task: DiscoveryTask, outcome: { catalog: SingerCatalog } | { message: string }): Promise<void> {
  const { scope, flowId, key, token } = task;
  const now = ctx.now();
  const status = 'catalog' in outcome ? 'DISCOVER_SUCCESS' as const : 'DISCOVER_FAILED' as const;
  let message = 'message' in outcome ? outcome.message : null;
  await ctx.db.kysely.transaction().execute(async (trx) => {
    const owned = await finishDiscovery(trx, scope, flowId, key, token, { status, message, now });
    if (owned && 'catalog' in outcome) {
      const fieldMap = (await getLink(trx, scope, flowId, key))?.fieldMap ?? null;
      await saveDiscoveredCatalog(trx, scope, flowId, key, selectCatalog(outcome.catalog, fieldMap, null), fieldMapHash(fieldMap), now);
    }
    // Every DISCOVER_STARTED event gets its end, also for a run that lost the link's state.
    if (!owned) message = (await getLink(trx, scope, flowId, key)) ? 'superseded by a newer discovery of this link' : 'the link was removed';
    await recordDiscoverEvent(trx, ctx, scope, {
      flowId, tenant: scope.tenant, connector: key.name, status: owned ? status : 'DISCOVER_FAILED', message,
    });
  });
}
