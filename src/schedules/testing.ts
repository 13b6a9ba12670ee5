// Test support for the schedules suites: a controllable clock, fixture rows for the
// tables other domains own (flows, links), and a recording dispatch.
import type { AppContext } from '../context.ts';
import type { Dispatch, ScheduledOrigin } from './fire.ts';
import type { RunJobRequest } from '../jobs/request.ts';

export interface FakeClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(start: number): FakeClock {
  let current = start;
  return {
    now: () => current,
    set(ms) { current = ms; },
    advance(ms) { current += ms; },
  };
}

export async function insertFlow(ctx: AppContext, envId: string, flowId: string): Promise<void> {
  await ctx.db.kysely.insertInto('flows')
    .values({ env_id: envId, flow_id: flowId, spec: '{}', created_at: ctx.now(), updated_at: ctx.now() }).execute();
}

export async function insertLink(ctx: AppContext, envId: string, flowId: string, tenant: string, name: string): Promise<void> {
  await ctx.db.kysely.insertInto('links').values({
    env_id: envId, flow_id: flowId, tenant, kind: 'source', name, config_enc: null, field_map: null, catalog: null,
    state: null, symlink: null, created_at: ctx.now(), updated_at: ctx.now(),
  }).execute();
}

export interface RecordedRun {
  envId: string;
  tenant: string;
  flowId: string;
  request: RunJobRequest;
  origin: ScheduledOrigin;
  firedAt: number;
}

/** A dispatch that records each run and answers like createJob did start a job. */
export function recordingDispatch(clock: () => number): { dispatch: Dispatch; runs: RecordedRun[] } {
  const runs: RecordedRun[] = [];
  let counter = 0;
  const dispatch: Dispatch = async (_ctx, scope, flowId, request, origin) => {
    runs.push({ envId: scope.envId, tenant: scope.tenant, flowId, request, origin, firedAt: clock() });
    counter += 1;
    return { kind: 'job', job: { job_id: `job_${counter}` } };
  };
  return { dispatch, runs };
}
