import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_STATUSES, canTransition, failedStatusOf, isTerminal, JOB_STATUSES, TERMINAL_STATUSES, TRANSITIONS, type JobStatus,
} from './status-table.ts';

const status = fc.constantFrom(...JOB_STATUSES);

/** Follows allowed moves chosen by `picks` from JOB_CREATED; returns the path. */
function walk(picks: number[]): JobStatus[] {
  const path: JobStatus[] = ['JOB_CREATED'];
  for (const pick of picks) {
    const next = TRANSITIONS[path[path.length - 1] as JobStatus];
    if (next.length === 0) break;
    path.push(next[pick % next.length] as JobStatus);
  }
  return path;
}

describe('job status table', () => {
  it('has exactly the twelve statuses of the API description', () => {
    expect(JOB_STATUSES).toEqual([
      'JOB_CREATED', 'DISCOVER_STARTED', 'DISCOVER_FAILED', 'SYNC_STARTED', 'SYNC_FAILED', 'SYNC_SUCCESS',
      'ETL_STARTED', 'ETL_FAILED', 'ETL_SUCCESS', 'EXPORT_STARTED', 'EXPORT_FAILED', 'JOB_COMPLETED',
    ]);
    expect(TERMINAL_STATUSES).toEqual(['DISCOVER_FAILED', 'SYNC_FAILED', 'ETL_FAILED', 'EXPORT_FAILED', 'JOB_COMPLETED']);
    expect(ACTIVE_STATUSES.length + TERMINAL_STATUSES.length).toBe(12);
  });

  it('never reaches a status outside the table, and every path ends in a terminal status', () => {
    fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 30 }), (picks) => {
      const path = walk([...picks, ...Array(10).fill(0)]);
      for (const s of path) expect(JOB_STATUSES).toContain(s);
      expect(isTerminal(path[path.length - 1] as JobStatus)).toBe(true);
      expect(path.length).toBeLessThanOrEqual(9); // no cycles: at most created, discover, sync x2, etl x2, export x2, end
    }));
  });

  it('terminal statuses are terminal', () => {
    fc.assert(fc.property(status, status, (from, to) => {
      if (isTerminal(from)) expect(canTransition(from, to)).toBe(false);
    }));
  });

  it('refuses unknown statuses and self moves', () => {
    fc.assert(fc.property(fc.string(), status, (junk, s) => {
      if (!(JOB_STATUSES as readonly string[]).includes(junk)) {
        expect(canTransition(junk, s)).toBe(false);
        expect(canTransition(s, junk)).toBe(false);
      }
      expect(canTransition(s, s)).toBe(false);
    }));
  });

  it('a kill or crash from any active status lands on an allowed failed status', () => {
    fc.assert(fc.property(status, fc.boolean(), (s, streaming) => {
      const failed = failedStatusOf(s, streaming);
      if (isTerminal(s)) expect(failed).toBeNull();
      else {
        expect(failed).not.toBeNull();
        expect(failed).toMatch(/_FAILED$/);
        expect(canTransition(s, failed as JobStatus)).toBe(true);
      }
    }));
  });

  it('follows the issue: streaming skips ETL, no export completes after ETL', () => {
    expect(canTransition('SYNC_SUCCESS', 'EXPORT_STARTED')).toBe(true);
    expect(canTransition('ETL_SUCCESS', 'JOB_COMPLETED')).toBe(true);
    expect(canTransition('JOB_CREATED', 'JOB_COMPLETED')).toBe(false);
    expect(canTransition('SYNC_STARTED', 'ETL_STARTED')).toBe(false);
    expect(failedStatusOf('JOB_CREATED', false)).toBe('SYNC_FAILED');
    expect(failedStatusOf('SYNC_SUCCESS', true)).toBe('EXPORT_FAILED');
  });
});
