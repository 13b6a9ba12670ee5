import { describe, expect, it } from 'vitest';
import type { JobPlan } from '../links/job-plan.ts';
import { jobInputs, stateToCommit, withDefaultExportFolder } from './job-inputs.ts';
import type { JobTicket, RunJobRequest } from './request.ts';

const STORED = { bookmarks: { contacts: { updated_at: '2024-01-01T00:00:05Z' } } };

function plan(overrides: Partial<JobPlan> = {}): JobPlan {
  return {
    flowVersion: 1, flowId: 'f', link: { kind: 'source', name: 'tap-sample' },
    source: { name: 'tap-sample', run: { builtin: 'tap-sample' }, config: { api_key: 'k', start_date: '2020-01-01' }, catalog: { streams: [] }, fieldMap: null, state: STORED },
    target: { name: 'target-jsonl', run: { builtin: 'target-jsonl' }, config: { destination_path: '/out' } },
    etl: { mode: 'field_map' }, discover: 'auto', fieldMapChangedSinceDiscovery: false, ...overrides,
  };
}

function ticket(request: RunJobRequest, extra: Partial<JobTicket> = {}): JobTicket {
  return {
    jobId: 'j', s3Root: 'r', flowId: 'f', flowVersion: 1, tap: 'tap-sample', connector: 'tap-sample', jobType: null, jobName: 'n',
    syncType: 'incremental', startedBy: 'environment', scheduled: false, scheduleId: null, idempotencyKey: null, request, ...extra,
  };
}

describe('job inputs', () => {
  it('gives the built-in target-jsonl a per-tenant export folder when the flow names none', () => {
    const bare = plan({ target: { name: 'target-jsonl', run: { builtin: 'target-jsonl' }, config: {} } });
    const inputs = withDefaultExportFolder(bare, jobInputs(bare, ticket({})), '/data/exports', ['env', 'flow', 'acme']);
    expect(inputs.targetConfig).toEqual({ destination_path: '/data/exports/env/flow/acme' });
    const configured = withDefaultExportFolder(plan(), jobInputs(plan(), ticket({})), '/data/exports', ['env', 'flow', 'acme']);
    expect(configured.targetConfig).toEqual({ destination_path: '/out' });
    const other = plan({ target: { name: 't', run: { command: 'target-x' }, config: {} } });
    expect(withDefaultExportFolder(other, jobInputs(other, ticket({})), '/d', ['e', 'f', 't']).targetConfig).toEqual({});
  });

  it('uses the stored config, state and catalog by default', () => {
    const inputs = jobInputs(plan(), ticket({}));
    expect(inputs).toEqual({
      sourceConfig: { api_key: 'k', start_date: '2020-01-01' }, targetConfig: { destination_path: '/out' },
      inputState: STORED, fieldMap: null, discover: false, streaming: false,
    });
  });

  it('applies overrides for the job: configs, dates, field map', () => {
    const inputs = jobInputs(plan(), ticket({
      override_source_config: { api_key: 'other' }, override_target_config: { destination_path: '/x' },
      override_start_date: '2024-02-01', override_end_date: '2024-03-01', override_field_map: { deals: { name: 'd', selected: ['id'] } },
    }));
    expect(inputs.sourceConfig).toEqual({ api_key: 'other', start_date: '2024-02-01', end_date: '2024-03-01' });
    expect(inputs.targetConfig).toEqual({ destination_path: '/x' });
    expect(inputs.inputState).toBeNull(); // a start date ignores the bookmarks
    expect(inputs.fieldMap).toEqual({ deals: { name: 'd', selected: ['id'] } });
  });

  it('reset_source_state syncs without state; the state is cleared only when none came back', () => {
    const reset = ticket({ reset_source_state: true });
    expect(jobInputs(plan(), reset).inputState).toBeNull();
    expect(stateToCommit(null, reset)).toBeNull();
    expect(stateToCommit({ a: 1 }, reset)).toEqual({ a: 1 });
    expect(stateToCommit(null, ticket({}))).toBeUndefined();
  });

  it('discovers without a catalog, when the flow always discovers, or after a field map change', () => {
    expect(jobInputs(plan({ source: { ...plan().source, catalog: null } }), ticket({})).discover).toBe(true);
    expect(jobInputs(plan({ discover: 'always' }), ticket({})).discover).toBe(true);
    expect(jobInputs(plan({ fieldMapChangedSinceDiscovery: true }), ticket({})).discover).toBe(true);
  });

  it('v2: override_connector_config goes to the tenant connector side; write jobs take the request state', () => {
    const read = jobInputs(plan({ flowVersion: 2 }), ticket({ override_connector_config: { x: 1 } }, { flowVersion: 2, jobType: 'read' }));
    expect(read.sourceConfig).toMatchObject({ x: 1 });
    expect(read.targetConfig).not.toHaveProperty('x');
    const write = jobInputs(plan({ flowVersion: 2 }), ticket({ override_connector_config: { x: 1 }, state: { cursor: 9 } }, { flowVersion: 2, jobType: 'write' }));
    expect(write.targetConfig).toMatchObject({ x: 1 });
    expect(write.sourceConfig).not.toHaveProperty('x');
    expect(write.inputState).toEqual({ cursor: 9 });
  });
});
